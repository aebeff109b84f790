import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { ApiAuthGuard } from './api-auth.guard';
import { BasicStrategy } from './basic.strategy';
import { BearerStrategy } from './bearer.strategy';
import { TokenService } from './token.service';

@Global()
@Module({
  imports: [PassportModule.register({ session: false })],
  providers: [TokenService, BasicStrategy, BearerStrategy, { provide: APP_GUARD, useClass: ApiAuthGuard }],
  exports: [TokenService],
})
export class AuthModule {}
