import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authorize } from '../../platform/auth/authorize.decorator';
import { CurrentPrincipal } from '../../platform/auth/current-principal.decorator';
import type { Principal } from '../../platform/auth/principal';
import { Scope } from '../../platform/auth/scopes';
import { ContentConnectorsService } from './content-connectors.service';
import { ConnectorListQueryDto, CreateConnectorDto, UpdateConnectorDto } from './dto/connector.dto';

/** The real API's content connectors (4 operations at /contentConnectors); course imports read from them. */
@ApiTags('content_connectors')
@Controller('contentConnectors')
export class ContentConnectorsController {
  constructor(private readonly connectors: ContentConnectorsService) {}

  @Get()
  @ApiOperation({ operationId: 'GetConnectorsList', summary: "The application's content connectors (secrets never answered)" })
  @Authorize(Scope.Read, Scope.ReadCourse)
  list(@CurrentPrincipal() p: Principal, @Query() query: ConnectorListQueryDto) {
    return this.connectors.list(p.appId, query.includeAdditionalInstanceInformation === true);
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({ operationId: 'CreateConnector', summary: 'Creates an S3 or HTTP content connector; answers its id' })
  @Authorize(Scope.Write, Scope.WriteCourse)
  create(@CurrentPrincipal() p: Principal, @Body() body: CreateConnectorDto) {
    return this.connectors.create(p.appId, body);
  }

  @Put(':connectorId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'UpdateConnector', summary: 'Replaces the configuration (secret fields not given keep their values) and/or enabled' })
  @Authorize(Scope.Write, Scope.WriteCourse)
  async update(@CurrentPrincipal() p: Principal, @Param('connectorId') connectorId: string, @Body() body: UpdateConnectorDto): Promise<void> {
    await this.connectors.update(p.appId, connectorId, body);
  }

  @Delete(':connectorId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteConnector', summary: 'Deletes a content connector' })
  @Authorize(Scope.Delete, Scope.DeleteCourse)
  async delete(@CurrentPrincipal() p: Principal, @Param('connectorId') connectorId: string): Promise<void> {
    await this.connectors.delete(p.appId, connectorId);
  }
}
