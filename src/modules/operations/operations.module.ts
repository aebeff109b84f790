import { Module } from '@nestjs/common';
import { ApplicationsModule } from '../applications/applications.module';
import { ApplicationAdminsModule } from '../learners/application-admins.module';
import { AdminsController } from './admins.controller';
import { AuditController } from './audit.controller';
import { JobsController } from './jobs.controller';

/** LCDS's own operations for the people who run it (/api/v2/lcds/…): the audit log, the job queues, administrators. */
@Module({
  imports: [ApplicationsModule, ApplicationAdminsModule],
  controllers: [AuditController, JobsController, AdminsController],
})
export class OperationsModule {}
