import { Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApplicationHooks } from '../applications/application-hooks';
import { XapiCredentialEntity } from './entities/xapi-credential.entity';
import { XapiAttachmentEntity, XapiDocumentEntity } from './entities/xapi-document.entity';
import { XapiStatementEntity, XapiStatementLinkEntity } from './entities/xapi-statement.entity';
import { XapiCredentialsController } from './xapi-credentials.controller';
import { XapiCredentialsService } from './xapi-credentials.service';
import { XapiDocumentsService } from './xapi-documents.service';
import { XapiStatementsService } from './xapi-statements.service';

/** xAPI of API V2 (credentials; statement pipes later) and the statement store behind every application's LRS. */
@Module({
  imports: [TypeOrmModule.forFeature([XapiCredentialEntity, XapiStatementEntity, XapiStatementLinkEntity, XapiDocumentEntity, XapiAttachmentEntity])],
  controllers: [XapiCredentialsController],
  providers: [XapiCredentialsService, XapiStatementsService, XapiDocumentsService],
  exports: [XapiCredentialsService, XapiStatementsService, XapiDocumentsService],
})
export class XapiModule implements OnModuleInit {
  constructor(
    private readonly applicationHooks: ApplicationHooks,
    private readonly credentials: XapiCredentialsService,
    private readonly statements: XapiStatementsService,
    private readonly documents: XapiDocumentsService,
  ) {}

  onModuleInit(): void {
    this.applicationHooks.registerPurger('xapi', async (appId) => {
      await this.statements.purgeApplication(appId);
      await this.documents.purgeApplication(appId);
      await this.credentials.purgeApplication(appId);
    });
  }
}
