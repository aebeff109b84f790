import { Global, Module } from '@nestjs/common';
import { ClusterEvents } from './cluster-events.service';
import { RedisService } from './redis.service';

@Global()
@Module({ providers: [RedisService, ClusterEvents], exports: [RedisService, ClusterEvents] })
export class RedisModule {}
