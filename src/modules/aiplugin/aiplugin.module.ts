import { Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApplicationHooks } from '../applications/application-hooks';
import { CourseHooks } from '../courses/course-hooks';
import { CoursesModule } from '../courses/courses.module';
import { AiPluginKeys } from './ai-plugin-keys';
import { AiPluginProvider } from './ai-plugin-provider';
import { AiPluginController, ZoomiController } from './aiplugin.controller';
import { AiPluginService } from './aiplugin.service';
import { AiPluginAppEntity } from './entities/ai-plugin-app.entity';
import { AiPluginCourseEntity } from './entities/ai-plugin-course.entity';
import { HttpAiPluginProvider } from './http-ai-plugin-provider';

/**
 * The AI plugin service (contract /aiplugin, real API /zoomi): owns ai_plugin_app and ai_plugin_course. The player
 * asks AiPluginService.launchConfig what a launch carries. The partner is an AiPluginProvider (HTTP by default).
 */
@Module({
  imports: [TypeOrmModule.forFeature([AiPluginAppEntity, AiPluginCourseEntity]), CoursesModule],
  controllers: [AiPluginController, ZoomiController],
  providers: [AiPluginKeys, AiPluginService, { provide: AiPluginProvider, useClass: HttpAiPluginProvider }],
  exports: [AiPluginService],
})
export class AiPluginModule implements OnModuleInit {
  constructor(
    private readonly applicationHooks: ApplicationHooks,
    private readonly courseHooks: CourseHooks,
    private readonly plugin: AiPluginService,
  ) {}

  onModuleInit(): void {
    this.applicationHooks.registerPurger('aiplugin', (appId) => this.plugin.purgeApplication(appId));
    this.courseHooks.registerDeletion('aiplugin', (appId, courseId, version) => this.plugin.forgetCourse(appId, courseId, version));
  }
}
