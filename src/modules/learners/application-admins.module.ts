import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApplicationAdminEntity } from './application-admin.entity';
import { ApplicationAdminsService } from './application-admins.service';

/** Application administrators, on their own so the CLI can load them without the rest of the learner service. */
@Module({ imports: [TypeOrmModule.forFeature([ApplicationAdminEntity])], providers: [ApplicationAdminsService], exports: [ApplicationAdminsService] })
export class ApplicationAdminsModule {}
