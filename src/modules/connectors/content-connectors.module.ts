import { Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApplicationHooks } from '../applications/application-hooks';
import { ContentConnectorsController } from './content-connectors.controller';
import { ContentConnectorsService } from './content-connectors.service';
import { ContentConnectorEntity } from './entities/content-connector.entity';

/** Content connectors (/contentConnectors): owns content_connector; courses' imports read packages through ContentConnectorsService. */
@Module({
  imports: [TypeOrmModule.forFeature([ContentConnectorEntity])],
  controllers: [ContentConnectorsController],
  providers: [ContentConnectorsService],
  exports: [ContentConnectorsService],
})
export class ContentConnectorsModule implements OnModuleInit {
  constructor(
    private readonly applicationHooks: ApplicationHooks,
    private readonly connectors: ContentConnectorsService,
  ) {}

  onModuleInit(): void {
    this.applicationHooks.registerPurger('contentConnectors', (appId) => this.connectors.purgeApplication(appId));
  }
}
