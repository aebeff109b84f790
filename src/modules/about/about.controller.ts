import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { Authorize } from '../../platform/auth/authorize.decorator';
import { Scope } from '../../platform/auth/scopes';

@ApiTags('about')
@Controller('about')
export class AboutController {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Get()
  @ApiOperation({ operationId: 'GetAbout', summary: 'Version and distribution of the server' })
  @Authorize(Scope.ReadAbout)
  about(): { version: string; distribution: string } {
    return { version: this.config.version, distribution: 'lcds' };
  }
}
