import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { RedisService } from '../redis/redis.service';
import { DomainError } from './domain-errors';

export type RateBucket = keyof AppConfig['rateLimits'];

/** What a limited request is told (also the headers of allowed ones). */
export interface RateState {
  limit: number;
  remaining: number;
  /** Seconds until the window gives the points back. */
  resetSeconds: number;
}

/** 429: the MessageSchema body, with Retry-After and RateLimit-* headers (all-exceptions filter). */
export class TooManyRequestsError extends DomainError {
  readonly status = 429;
  constructor(
    message: string,
    readonly state: RateState,
  ) {
    super(message);
  }
}

export function rateLimitHeaders(state: RateState): Record<string, string> {
  return { 'RateLimit-Limit': String(state.limit), 'RateLimit-Remaining': String(state.remaining), 'RateLimit-Reset': String(state.resetSeconds) };
}

const WHAT: Record<RateBucket, string> = {
  api: 'API requests of this application',
  apiCredential: 'API requests with this key or token',
  lrs: 'LRS requests of this application',
  player: 'runtime commits of this application',
};

/**
 * Requests per minute per application (and per credential), by kind: the API, the LRS and the player's commits
 * each have their own budget, so one tenant's load test spends its own and nobody else's. Counted in Redis on the
 * production stack (every node shares the count; if Redis fails, each node counts in memory until it is back),
 * in memory on the embedded one. A limit of 0 (the default) counts nothing.
 */
@Injectable()
export class RateLimits implements OnModuleInit {
  private readonly logger = new Logger(RateLimits.name);
  private readonly limiters = new Map<RateBucket, RateLimiterAbstract>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly redis: RedisService,
  ) {}

  onModuleInit(): void {
    const entries = Object.entries(this.config.rateLimits) as Array<[RateBucket, number]>;
    if (entries.every(([, points]) => points === 0)) return;
    const client = this.redis.enabled ? this.redis.connect('rate-limits', { enableOfflineQueue: false, maxRetriesPerRequest: 1 }) : null;
    for (const [bucket, points] of entries) {
      if (points === 0) continue;
      const memory = new RateLimiterMemory({ points, duration: 60, keyPrefix: bucket });
      this.limiters.set(
        bucket,
        client ? new RateLimiterRedis({ storeClient: client, points, duration: 60, keyPrefix: `${this.redis.prefix}:rl:${bucket}`, insuranceLimiter: memory }) : memory,
      );
    }
    this.logger.log({ msg: 'rate limits on', perMinute: this.config.rateLimits, shared: client !== null });
  }

  get enabled(): boolean {
    return this.limiters.size > 0;
  }

  /** Spends a point of `key` in `bucket`; the state to report, null when the bucket has no limit. Throws 429 past it. */
  async consume(bucket: RateBucket, key: string): Promise<RateState | null> {
    const limiter = this.limiters.get(bucket);
    if (!limiter) return null;
    try {
      return stateOf(limiter.points, await limiter.consume(key));
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      const state = stateOf(limiter.points, err);
      throw new TooManyRequestsError(`Rate limit exceeded: ${limiter.points} ${WHAT[bucket]} per minute; retry in ${state.resetSeconds} s`, state);
    }
  }
}

function stateOf(limit: number, res: RateLimiterRes): RateState {
  return { limit, remaining: Math.max(0, res.remainingPoints), resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)) };
}
