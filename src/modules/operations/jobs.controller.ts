import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Audited } from '../../platform/audit/audited.decorator';
import { Authorize } from '../../platform/auth/authorize.decorator';
import { CurrentPrincipal } from '../../platform/auth/current-principal.decorator';
import type { Principal } from '../../platform/auth/principal';
import { Scope } from '../../platform/auth/scopes';
import { JobAdmin, JobScope } from '../../platform/queue/job-admin';
import { FailedJobsQueryDto } from './dto/audit-query.dto';

/** An application sees its own jobs; a management application sees every job of the installation. */
const scopeOf = (p: Principal): JobScope => (p.isManagement ? { all: true, viewer: p.appId } : { appId: p.appId });

/** LCDS's own operations: the job queues (the same on Bull/Redis and in-process). */
@ApiTags('lcds')
@Controller('lcds/jobs')
export class JobsController {
  constructor(private readonly jobs: JobAdmin) {}

  @Get()
  @ApiOperation({ operationId: 'LcdsGetJobCounts', summary: 'Jobs by queue and state (queued, running, completed, failed)' })
  @Authorize(Scope.ReadJobs, Scope.Read)
  async getJobCounts(@CurrentPrincipal() p: Principal) {
    return { queues: await this.jobs.counts(scopeOf(p)) };
  }

  @Get('failed')
  @ApiOperation({ operationId: 'LcdsGetFailedJobs', summary: 'Failed jobs with their last error, most recent first, 50 a page (more)' })
  @Authorize(Scope.ReadJobs, Scope.Read)
  getFailedJobs(@CurrentPrincipal() p: Principal, @Query() query: FailedJobsQueryDto) {
    return this.jobs.failed(scopeOf(p), query.more);
  }

  @Post(':jobId/retry')
  @HttpCode(204)
  @ApiOperation({ operationId: 'LcdsRetryJob', summary: 'Runs a failed job again, with all its attempts' })
  @Audited({ action: 'LcdsRetryJob' })
  @Authorize(Scope.WriteJobs, Scope.Write)
  async retryJob(@CurrentPrincipal() p: Principal, @Param('jobId') jobId: string): Promise<void> {
    await this.jobs.retry(scopeOf(p), jobId);
  }
}
