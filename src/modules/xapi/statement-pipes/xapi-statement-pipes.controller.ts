import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authorize } from '../../../platform/auth/authorize.decorator';
import { CurrentPrincipal } from '../../../platform/auth/current-principal.decorator';
import type { Principal } from '../../../platform/auth/principal';
import { Scope } from '../../../platform/auth/scopes';
import { XapiStatementPipePostDto, XapiStatementPipePutDto } from '../dto/xapi-statement-pipe.dto';
import { StatementPipeProcessor } from './statement-pipe.processor';
import { XapiStatementPipesService } from './xapi-statement-pipes.service';
import { Audited } from '../../../platform/audit/audited.decorator';

const PR = [Scope.Read, Scope.ReadXapiPipe] as const;
const PW = [Scope.WriteXapiPipe, Scope.Write] as const;
const PD = [Scope.DeleteXapiPipe, Scope.Delete] as const;

@ApiTags('xapi')
@Controller('xapi/statementPipes')
export class XapiStatementPipesController {
  constructor(
    private readonly pipes: XapiStatementPipesService,
    private readonly processor: StatementPipeProcessor,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ operationId: 'CreateStatementPipe' })
  @Audited({ action: 'CreateStatementPipe', created: { target: 'statementPipeId', id: (r) => (r as { result: string }).result } })
  @Authorize(...PW)
  async createStatementPipe(@CurrentPrincipal() p: Principal, @Body() body: XapiStatementPipePostDto) {
    const pipe = await this.pipes.create(p.appId, body);
    await this.processor.schedule(pipe.appId, pipe.id, pipe.generation, pipe.visibleAfter);
    return { result: pipe.id };
  }

  @Get()
  @ApiOperation({ operationId: 'GetStatementPipes' })
  @Authorize(...PR)
  async getStatementPipes(@CurrentPrincipal() p: Principal) {
    return { xapiStatementPipes: await this.pipes.list(p.appId) };
  }

  @Get(':statementPipeId')
  @ApiOperation({ operationId: 'GetStatementPipe' })
  @Authorize(...PR)
  getStatementPipe(@CurrentPrincipal() p: Principal, @Param('statementPipeId') id: string) {
    return this.pipes.get(p.appId, id);
  }

  @Put(':statementPipeId')
  @HttpCode(200)
  @ApiOperation({ operationId: 'SetStatementPipe' })
  @Audited({ action: 'SetStatementPipe' })
  @Authorize(...PW)
  async setStatementPipe(@CurrentPrincipal() p: Principal, @Param('statementPipeId') id: string, @Body() body: XapiStatementPipePutDto) {
    const pipe = await this.pipes.update(p.appId, id, body);
    await this.processor.schedule(pipe.appId, pipe.id, pipe.generation, pipe.visibleAfter);
    return { result: pipe.id };
  }

  @Delete(':statementPipeId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'DeleteStatementPipe' })
  @Audited({ action: 'DeleteStatementPipe' })
  @Authorize(...PD)
  async deleteStatementPipe(@CurrentPrincipal() p: Principal, @Param('statementPipeId') id: string) {
    await this.pipes.delete(p.appId, id);
  }
}
