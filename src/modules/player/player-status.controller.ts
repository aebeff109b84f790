import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { PublicEndpoint } from '../../platform/auth/authorize.decorator';
import { playerJson } from './player-errors';
import { PlayerStatusService } from './player-status.service';

/** The status the player page polls while content that reports to the LRS runs (xAPI, cmi5). */
@ApiExcludeController()
@Controller('player')
export class PlayerStatusController {
  constructor(private readonly statuses: PlayerStatusService) {}

  @Get('s/:token/status')
  @PublicEndpoint()
  async status(@Param('token') token: string, @Res() res: Response) {
    await playerJson(res, () => this.statuses.status(token));
  }
}
