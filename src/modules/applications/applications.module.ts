import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CredentialVerifier } from '../../platform/auth/credential-verifier';
import { AppTokensService } from './app-tokens.service';
import { ApplicationAccountController } from './application-account.controller';
import { ApplicationHooks } from './application-hooks';
import { ApplicationsController } from './applications.controller';
import { ApplicationsService } from './applications.service';
import { BootstrapService } from './bootstrap.service';
import { CredentialCache } from './credential-cache';
import { CredentialsService } from './credentials.service';
import { ApplicationEntity } from './entities/application.entity';
import { CredentialEntity } from './entities/credential.entity';
import { TokensController } from './tokens.controller';

/**
 * Application Management and Authentication. Global because the auth platform verifies every request
 * through the CredentialVerifier this module provides, and other modules register ApplicationHooks.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([ApplicationEntity, CredentialEntity])],
  controllers: [ApplicationsController, TokensController, ApplicationAccountController],
  providers: [
    ApplicationsService,
    CredentialsService,
    CredentialCache,
    AppTokensService,
    ApplicationHooks,
    BootstrapService,
    { provide: CredentialVerifier, useExisting: CredentialCache },
  ],
  exports: [ApplicationsService, CredentialsService, ApplicationHooks, CredentialVerifier],
})
export class ApplicationsModule {}
