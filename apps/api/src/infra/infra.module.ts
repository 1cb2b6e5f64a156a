import { Global, Module } from '@nestjs/common';
import { PrismaService } from './prisma.service';
import { RedisConnections } from './redis.provider';

@Global()
@Module({ providers: [PrismaService, RedisConnections], exports: [PrismaService, RedisConnections] })
export class InfraModule {}
