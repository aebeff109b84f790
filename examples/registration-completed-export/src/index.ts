import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Extension } from 'lcds/extension';
import { CompletionExportEntity } from './completion-export.entity';
import { CompletionExports } from './completion-exports';
import { CompletionsController } from './completions.controller';
import { RegistrationCompletedExport1767000000000 } from './migrations/1767000000000-registration-completed-export';

/**
 * An LCDS extension (LCDS_EXTENSIONS=lcds-registration-completed-export, or the absolute path of this folder): a row
 * per completed registration instance in a table of its own, listed at GET /ext/registration-completed-export/completions.
 */
@Extension({ name: 'registration-completed-export', migrations: [RegistrationCompletedExport1767000000000] })
@Module({
  imports: [TypeOrmModule.forFeature([CompletionExportEntity])],
  controllers: [CompletionsController],
  providers: [CompletionExports],
})
export default class RegistrationCompletedExportModule {}
