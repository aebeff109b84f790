import { Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApplicationHooks } from '../applications/application-hooks';
import { XapiCredentialEntity } from './entities/xapi-credential.entity';
import { XapiAttachmentEntity, XapiDocumentEntity } from './entities/xapi-document.entity';
import { XapiStatementPipeEntity } from './entities/xapi-statement-pipe.entity';
import { XapiStatementEntity, XapiStatementLinkEntity } from './entities/xapi-statement.entity';
import { LrsCredentialCache } from './lrs/lrs-credential-cache';
import { LaunchSessions } from './lrs/launch-sessions';
import { LrsLaunchTokens } from './lrs/lrs-launch-tokens';
import { StatementPipeEndpoints } from './statement-pipes/statement-pipe-endpoints';
import { StatementPipeProcessor } from './statement-pipes/statement-pipe.processor';
import { XapiStatementPipesController } from './statement-pipes/xapi-statement-pipes.controller';
import { XapiStatementPipesService } from './statement-pipes/xapi-statement-pipes.service';
import { XapiCredentialsController } from './xapi-credentials.controller';
import { XapiCredentialsService } from './xapi-credentials.service';
import { XapiDocumentsService } from './xapi-documents.service';
import { XapiStatementsService } from './xapi-statements.service';

/** xAPI of API V2 (credentials, statement pipes) and the statement store behind every application's LRS. */
@Module({
  imports: [TypeOrmModule.forFeature([XapiCredentialEntity, XapiStatementEntity, XapiStatementLinkEntity, XapiDocumentEntity, XapiAttachmentEntity, XapiStatementPipeEntity])],
  controllers: [XapiCredentialsController, XapiStatementPipesController],
  providers: [XapiCredentialsService, XapiStatementsService, XapiDocumentsService, XapiStatementPipesService, StatementPipeEndpoints, StatementPipeProcessor, LrsCredentialCache, LrsLaunchTokens, LaunchSessions],
  exports: [XapiCredentialsService, XapiStatementsService, XapiDocumentsService, LrsCredentialCache, LrsLaunchTokens, LaunchSessions],
})
export class XapiModule implements OnModuleInit {
  constructor(
    private readonly applicationHooks: ApplicationHooks,
    private readonly credentials: XapiCredentialsService,
    private readonly statements: XapiStatementsService,
    private readonly documents: XapiDocumentsService,
    private readonly pipes: XapiStatementPipesService,
  ) {}

  onModuleInit(): void {
    this.applicationHooks.registerPurger('xapi', async (appId) => {
      await this.pipes.purgeApplication(appId);
      await this.statements.purgeApplication(appId);
      await this.documents.purgeApplication(appId);
      await this.credentials.purgeApplication(appId);
    });
  }
}
