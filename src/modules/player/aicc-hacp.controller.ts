import { Body, Controller, Get, HttpCode, Options, Param, Post, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { PublicEndpoint } from '../../platform/auth/authorize.decorator';
import { HACP_PATH } from './aicc-hacp';
import { playerJson } from './player-errors';
import { AiccHacpService, hacpRequestOf } from './aicc-hacp.service';

/** AUs may be served from other hosts: the answers are readable cross-origin (a plain form post needs nothing). */
function hacpHeaders(res: Response): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Cache-Control', 'no-store');
}

/** The AICC HACP endpoint (the `aicc_url` an AU gets); the AU authenticates by its `session_id` (aicc_sid). */
@ApiExcludeController()
@Controller()
export class AiccHacpController {
  constructor(private readonly hacp: AiccHacpService) {}

  @Post(HACP_PATH)
  @HttpCode(200)
  @PublicEndpoint()
  async post(@Body() body: unknown, @Res() res: Response) {
    const answer = await this.hacp.handle(hacpRequestOf(body));
    hacpHeaders(res);
    res.type('text/plain').send(answer);
  }

  /** The player page polls this while an AU runs: the AU reports to the server, not to the page. */
  @Get('player/s/:token/aicc')
  @PublicEndpoint()
  async status(@Param('token') token: string, @Res() res: Response) {
    await playerJson(res, () => this.hacp.status(token));
  }

  @Options(HACP_PATH)
  @PublicEndpoint()
  preflight(@Res() res: Response) {
    hacpHeaders(res);
    res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', 'Content-Type');
    res.setHeader('Access-Control-Max-Age', '86400');
    res.status(204).end();
  }
}
