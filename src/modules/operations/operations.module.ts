import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobAdmin } from '../../platform/queue/job-admin';
import { JobEntity } from '../../platform/queue/job.entity';
import { ApplicationsModule } from '../applications/applications.module';
import { ApplicationAdminsModule } from '../learners/application-admins.module';
import { AdminsController } from './admins.controller';
import { AuditController } from './audit.controller';
import { JobsController } from './jobs.controller';

/** LCDS's own operations for the people who run it (/api/v2/lcds/…): the audit log, the job queues, administrators. */
@Module({
  imports: [ApplicationsModule, ApplicationAdminsModule, TypeOrmModule.forFeature([JobEntity])],
  controllers: [AuditController, JobsController, AdminsController],
  // The operators' view of the job table (it needs the HTTP platform's PageTokens, which QueueModule does not).
  providers: [JobAdmin],
})
export class OperationsModule {}
