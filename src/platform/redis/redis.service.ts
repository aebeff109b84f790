import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import Redis, { RedisOptions } from 'ioredis';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';

/** Hands out Redis connections to the URL of the configuration and closes them all at shutdown. */
@Injectable()
export class RedisService implements OnApplicationShutdown {
  private readonly logger = new Logger(RedisService.name);
  private readonly clients: Redis[] = [];

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get enabled(): boolean {
    return this.config.redis !== null;
  }

  get prefix(): string {
    return this.config.redis?.prefix ?? 'lcds';
  }

  connect(name: string, options: RedisOptions = {}): Redis {
    if (!this.config.redis) throw new Error('REDIS_URL is not configured');
    const client = new Redis(this.config.redis.url, { connectionName: `lcds-${name}`, lazyConnect: false, ...options });
    client.on('error', (err: Error) => this.logger.warn({ msg: 'redis connection error', connection: name, err: err.message }));
    this.clients.push(client);
    return client;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.clients.map((c) => c.quit().catch(() => c.disconnect())));
  }
}
