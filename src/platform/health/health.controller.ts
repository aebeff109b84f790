import { Controller, Get } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, HealthIndicatorService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import type Redis from 'ioredis';
import { PublicEndpoint } from '../auth/authorize.decorator';
import { RedisService } from '../redis/redis.service';

/** Liveness (the process answers) and readiness (its database and Redis answer), for load balancers and orchestrators. */
@ApiExcludeController()
@Controller('health')
export class HealthController {
  private redisClient?: Redis;

  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    private readonly indicators: HealthIndicatorService,
    private readonly redis: RedisService,
  ) {}

  @Get('live')
  @PublicEndpoint({ onWorkers: true })
  live(): { status: string } {
    return { status: 'ok' };
  }

  @Get('ready')
  @PublicEndpoint({ onWorkers: true })
  @HealthCheck()
  ready() {
    return this.health.check([
      () => this.db.pingCheck('database', { timeout: 2000 }),
      ...(this.redis.enabled ? [() => this.redisCheck()] : []),
    ]);
  }

  private async redisCheck() {
    const indicator = this.indicators.check('redis');
    this.redisClient ??= this.redis.connect('health', { maxRetriesPerRequest: 1 });
    try {
      const answer = await Promise.race([
        this.redisClient.ping(),
        new Promise<string>((_, reject) => setTimeout(() => reject(new Error('timeout after 2000 ms')), 2000).unref()),
      ]);
      return answer === 'PONG' ? indicator.up() : indicator.down({ message: `unexpected answer ${answer}` });
    } catch (err) {
      return indicator.down({ message: err instanceof Error ? err.message : String(err) });
    }
  }
}
