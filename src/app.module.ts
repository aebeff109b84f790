import { DynamicModule, Module } from '@nestjs/common';
import { RouterModule } from '@nestjs/core';
import type { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { AuthModule } from './platform/auth/auth.module';
import { CryptoModule } from './platform/crypto/crypto.module';
import { DatabaseModule } from './platform/database/database.module';
import { HealthModule } from './platform/health/health.module';
import { HttpPlatformModule } from './platform/http/http-platform.module';
import { LoggingModule } from './platform/logging/logging.module';
import { QueueModule } from './platform/queue/queue.module';
import { RedisModule } from './platform/redis/redis.module';
import { AboutModule } from './modules/about/about.module';
import { ApplicationsModule } from './modules/applications/applications.module';
import { CoursesModule } from './modules/courses/courses.module';
import { PingModule } from './modules/ping/ping.module';
import { PlayerModule } from './modules/player/player.module';
import { RegistrationsModule } from './modules/registrations/registrations.module';
import { ReportingModule } from './modules/reporting/reporting.module';
import { SettingsModule } from './modules/settings/settings.module';
import { TagsModule } from './modules/tags/tags.module';
import { LrsModule } from './modules/xapi/lrs/lrs.module';
import { XapiModule } from './modules/xapi/xapi.module';
import { OutboundModule } from './platform/outbound/outbound.module';
import { StorageModule } from './platform/storage/storage.module';
import { WebModule } from './modules/web/web.module';

/** Modules whose controllers form the API V2, mounted under /api/v2. */
const API_V2_MODULES = [PingModule, AboutModule, ApplicationsModule, CoursesModule, SettingsModule, RegistrationsModule, XapiModule, ReportingModule];

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule.forRoot(config),
        CryptoModule,
        DatabaseModule,
        RedisModule,
        QueueModule,
        AuthModule,
        HttpPlatformModule,
        HealthModule,
        StorageModule,
        OutboundModule,
        TagsModule,
        // Every role loads every module (job processors live in them); ApiAuthGuard keeps a worker's HTTP to /health.
        ...API_V2_MODULES,
        RouterModule.register([{ path: 'api/v2', children: API_V2_MODULES }]),
        // Each application's LRS lives at /lrs/{appId}/, outside the API V2 router.
        LrsModule,
        // The learner-facing player lives at /player/, outside the API V2 router.
        PlayerModule,
        // The report viewer (/reports/), the console (/console/) and GET /.
        WebModule,
      ],
    };
  }
}
