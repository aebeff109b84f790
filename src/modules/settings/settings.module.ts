import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TagsModule } from '../tags/tags.module';
import { SettingValueEntity } from './entities/setting-value.entity';
import { SettingsController } from './settings.controller';
import { SettingsService } from './settings.service';

/**
 * Configuration settings at every level (application, learning-standard bucket, course, course version,
 * registration, registration instance). Global: the courses and registrations modules serve their own
 * /configuration routes through SettingsService. Brings the (global) TagsModule in with it.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([SettingValueEntity]), TagsModule],
  controllers: [SettingsController],
  providers: [SettingsService],
  exports: [SettingsService],
})
export class SettingsModule {}
