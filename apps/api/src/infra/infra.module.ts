import { Global, Module } from '@nestjs/common';
import { PrismaService } from './prisma.service';
import { LimitInvalidation } from './limit-invalidation';
import { RedisConnections } from './redis.provider';

@Global()
@Module({ providers: [PrismaService, RedisConnections, LimitInvalidation], exports: [PrismaService, RedisConnections, LimitInvalidation] })
export class InfraModule {}
