import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authorize } from '../../platform/auth/authorize.decorator';
import { Scope } from '../../platform/auth/scopes';

@ApiTags('ping')
@Controller('ping')
export class PingController {
  @Get()
  @ApiOperation({ operationId: 'PingAppId', summary: 'Checks credentials and that the API is up' })
  @Authorize(Scope.ReadPing)
  ping(): { apiMessage: string; currentTime: string } {
    return { apiMessage: 'pong', currentTime: new Date().toISOString() };
  }
}
