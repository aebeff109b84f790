import { Controller, Get, Query } from '@nestjs/common';
import { IsISO8601, IsOptional, Matches } from 'class-validator';
import { Authorize, CurrentPrincipal, InvalidInputError, type Principal, Scope } from 'lcds/extension';
import { CompletionExports, CompletionExportView } from './completion-exports';

export class CompletionsQueryDto {
  /** 1 to 1000, 100 by default. */
  @IsOptional()
  @Matches(/^\d{1,4}$/, { message: 'limit must be an integer from 1 to 1000' })
  limit?: string;

  /** Only completions before this time (ISO 8601): the last row's completedAt gives the next page. */
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'before must be an ISO 8601 date-time' })
  before?: string;
}

/** Served at /ext/registration-completed-export/completions, with LCDS's credentials and scopes. */
@Controller('completions')
export class CompletionsController {
  constructor(private readonly exports: CompletionExports) {}

  @Get()
  @Authorize(Scope.Read, Scope.ReadRegistration)
  async list(@CurrentPrincipal() principal: Principal, @Query() query: CompletionsQueryDto): Promise<{ completions: CompletionExportView[] }> {
    const limit = query.limit === undefined ? 100 : Number(query.limit);
    if (limit < 1 || limit > 1000) throw new InvalidInputError('limit must be an integer from 1 to 1000');
    const before = query.before === undefined ? undefined : new Date(query.before);
    return { completions: await this.exports.list(principal.appId, limit, before) };
  }
}
