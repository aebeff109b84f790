import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import type Redis from 'ioredis';
import { RedisService } from './redis.service';

type Listener = (message: string) => void;

/**
 * Broadcasts small messages to every node of the cluster (Redis pub/sub), or within the process on the
 * embedded stack. Used to drop caches at once everywhere, e.g. when a secret key is disabled.
 * A listener also hears `reset` when the subscription was lost, since messages may have been missed then.
 */
@Injectable()
export class ClusterEvents implements OnModuleInit, OnModuleDestroy {
  static readonly RESET = '\u0000reset';
  private readonly logger = new Logger(ClusterEvents.name);
  private readonly local = new EventEmitter().setMaxListeners(100);
  private publisher?: Redis;
  private subscriber?: Redis;
  private readonly channels = new Set<string>();

  constructor(private readonly redis: RedisService) {}

  async onModuleInit(): Promise<void> {
    if (!this.redis.enabled) return;
    this.publisher = this.redis.connect('events-pub');
    this.subscriber = this.redis.connect('events-sub');
    let connectedBefore = false;
    this.subscriber.on('ready', () => {
      if (connectedBefore) {
        for (const channel of this.channels) this.local.emit(channel, ClusterEvents.RESET);
      }
      connectedBefore = true;
    });
    this.subscriber.on('message', (channel: string, message: string) => {
      this.local.emit(channel.slice(this.redis.prefix.length + 8), message);
    });
    await Promise.all([this.waitReady(this.publisher), this.waitReady(this.subscriber)]);
    if (this.channels.size > 0) await this.subscriber.subscribe(...[...this.channels].map((c) => this.wire(c)));
  }

  onModuleDestroy(): void {
    this.local.removeAllListeners();
  }

  on(channel: string, listener: Listener): void {
    this.local.on(channel, listener);
    if (!this.channels.has(channel)) {
      this.channels.add(channel);
      if (this.subscriber?.status === 'ready') {
        this.subscriber.subscribe(this.wire(channel)).catch((err: Error) => this.logger.error(`subscribe ${channel}: ${err.message}`));
      }
    }
  }

  async publish(channel: string, message: string): Promise<void> {
    if (!this.publisher) {
      this.local.emit(channel, message);
      return;
    }
    // The publishing node hears its own message through Redis as well; apply it locally at once too,
    // so the caller's next request never sees the stale value.
    this.local.emit(channel, message);
    await this.publisher.publish(this.wire(channel), message);
  }

  private wire(channel: string): string {
    return `${this.redis.prefix}:events:${channel}`;
  }

  private waitReady(client: Redis): Promise<void> {
    if (client.status === 'ready') return Promise.resolve();
    return new Promise((resolve, reject) => {
      client.once('ready', () => resolve());
      client.once('end', () => reject(new Error('Redis connection ended before it was ready')));
    });
  }
}
