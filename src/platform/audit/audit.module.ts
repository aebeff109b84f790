import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditEntryEntity } from './audit-entry.entity';
import { AuditLog } from './audit-log.service';
import { AuditInterceptor } from './audited.decorator';

/** The audit log, for every module (operations mark themselves with @Audited) and the CLI. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([AuditEntryEntity])],
  providers: [AuditLog, AuditInterceptor],
  exports: [AuditLog, AuditInterceptor],
})
export class AuditModule {}
