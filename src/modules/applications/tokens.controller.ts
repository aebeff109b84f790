import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiConsumes, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthorizeBasicOnly } from '../../platform/auth/authorize.decorator';
import { CurrentPrincipal } from '../../platform/auth/current-principal.decorator';
import type { Principal } from '../../platform/auth/principal';
import { AppTokensService } from './app-tokens.service';
import { AppTokenFormDto, TokenRequestDto } from './dto/token-request.dto';

@Controller()
export class TokensController {
  constructor(private readonly tokens: AppTokensService) {}

  @Post('appManagement/token')
  @HttpCode(200)
  @ApiTags('application_management')
  @ApiOperation({ operationId: 'CreateToken', summary: 'OAuth2 token for the calling application; answers {result: token}' })
  @AuthorizeBasicOnly()
  createToken(@CurrentPrincipal() principal: Principal, @Body() body: TokenRequestDto) {
    return this.tokens.issueForRequest(principal, body.permissions.scopes, body.expiry, body.permissions.applicationName);
  }

  @Post('oauth/authenticate/application/token')
  @HttpCode(200)
  @ApiTags('authentication')
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiOperation({ operationId: 'GetAppToken', summary: 'OAuth2 token for the calling application' })
  @AuthorizeBasicOnly()
  getAppToken(@CurrentPrincipal() principal: Principal, @Body() body: AppTokenFormDto) {
    return this.tokens.issueForForm(principal, body.scope, body.expiration);
  }
}
