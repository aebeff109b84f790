import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { timingSafeEqual } from 'node:crypto';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { PublicEndpoint } from '../auth/authorize.decorator';
import { metricsRegistry, scrape } from './metrics';

/**
 * GET /metrics: the Prometheus text format, on API and worker processes alike (scrape each). With METRICS_TOKEN
 * set, only `Authorization: Bearer <METRICS_TOKEN>` reads it.
 */
@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  private readonly token: Buffer | null;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.token = config.metricsToken ? Buffer.from(`Bearer ${config.metricsToken}`) : null;
  }

  @Get()
  @PublicEndpoint({ onWorkers: true })
  async metrics(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (this.token) {
      const given = Buffer.from(req.headers.authorization ?? '');
      if (given.length !== this.token.length || !timingSafeEqual(given, this.token)) {
        res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
        res.status(401).json({ message: 'The metrics need Authorization: Bearer <METRICS_TOKEN>.' });
        return;
      }
    }
    const body = await scrape();
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Content-Type', metricsRegistry.contentType);
    res.end(body);
  }
}
