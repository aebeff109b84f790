import { DynamicModule, Module } from '@nestjs/common';
import { RouterModule } from '@nestjs/core';
import type { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { AuthModule } from './platform/auth/auth.module';
import { CryptoModule } from './platform/crypto/crypto.module';
import { DatabaseModule } from './platform/database/database.module';
import { MetricsModule } from './platform/metrics/metrics.module';
import { HealthModule } from './platform/health/health.module';
import { HttpPlatformModule } from './platform/http/http-platform.module';
import { LoggingModule } from './platform/logging/logging.module';
import { QueueModule } from './platform/queue/queue.module';
import { EventsModule } from './platform/events/events.module';
import { RedisModule } from './platform/redis/redis.module';
import { AboutModule } from './modules/about/about.module';
import { AiPluginModule } from './modules/aiplugin/aiplugin.module';
import { ApplicationsModule } from './modules/applications/applications.module';
import { ContentConnectorsModule } from './modules/connectors/content-connectors.module';
import { CoursesModule } from './modules/courses/courses.module';
import { DispatchModule } from './modules/dispatch/dispatch.module';
import { DispatchPagesModule } from './modules/dispatch/dispatch-pages.module';
import { InvitationPagesModule } from './modules/invitations/invitation-pages.module';
import { InvitationsModule } from './modules/invitations/invitations.module';
import { LearnersModule } from './modules/learners/learners.module';
import { PingModule } from './modules/ping/ping.module';
import { PlayerModule } from './modules/player/player.module';
import { RegistrationsModule } from './modules/registrations/registrations.module';
import { ReportingModule } from './modules/reporting/reporting.module';
import { SettingsModule } from './modules/settings/settings.module';
import { TagsModule } from './modules/tags/tags.module';
import { LrsModule } from './modules/xapi/lrs/lrs.module';
import { XapiModule } from './modules/xapi/xapi.module';
import { MailModule } from './platform/mail/mail.module';
import { OutboundModule } from './platform/outbound/outbound.module';
import { StorageModule } from './platform/storage/storage.module';
import { loadExtensions } from './platform/extensions/extension-loader';
import { WebModule } from './modules/web/web.module';
import { OperationsModule } from './modules/operations/operations.module';
import { AuditModule } from './platform/audit/audit.module';

/** Modules whose controllers form the API V2, mounted under /api/v2. */
const API_V2_MODULES = [
  PingModule,
  AboutModule,
  ApplicationsModule,
  CoursesModule,
  SettingsModule,
  RegistrationsModule,
  XapiModule,
  InvitationsModule,
  LearnersModule,
  ReportingModule,
  OperationsModule,
  DispatchModule,
  AiPluginModule,
  ContentConnectorsModule,
];

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    const extensions = loadExtensions(config.extensions);
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule.forRoot(config),
        CryptoModule,
        DatabaseModule,
        RedisModule,
        QueueModule,
        EventsModule,
        AuthModule,
        HttpPlatformModule,
        AuditModule,
        HealthModule,
        MetricsModule,
        StorageModule,
        OutboundModule,
        MailModule,
        TagsModule,
        // Every role loads every module (job processors live in them); ApiAuthGuard keeps a worker's HTTP to /health.
        ...API_V2_MODULES,
        RouterModule.register([{ path: 'api/v2', children: API_V2_MODULES }]),
        // Each application's LRS lives at /lrs/{appId}/, outside the API V2 router.
        LrsModule,
        // The learner-facing player lives at /player/, outside the API V2 router.
        PlayerModule,
        // Invitation pages live at /invite/.
        InvitationPagesModule,
        // Dispatch launches and their relay live at /dispatch/.
        DispatchPagesModule,
        // The report viewer (/reports/), the console (/console/) and GET /.
        WebModule,
        // LCDS_EXTENSIONS, after LCDS's own modules; each one's controllers under /ext/{name}/ (docs/extending.md).
        ...extensions.map((e) => e.module),
        ...(extensions.length ? [RouterModule.register(extensions.map((e) => ({ path: `ext/${e.name}`, module: e.module })))] : []),
      ],
    };
  }
}
