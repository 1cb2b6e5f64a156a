import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { AdminAuthGuard } from './admin-auth.guard';
import { AuthController } from './auth.controller';
import { AuthRepository } from './auth.repository';
import { AuthService } from './auth.service';
import { RedisConnections } from '../infra/redis.provider';
import { RedisThrottlerStorage } from './redis-throttler.storage';

@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [RedisConnections],
      useFactory: (redis: RedisConnections) => ({
        // Only routes that opt in with @UseGuards(ThrottlerGuard) are throttled (login).
        throttlers: [{ name: 'login', limit: 10, ttl: 60_000 }],
        storage: new RedisThrottlerStorage(redis),
      }),
    }),
  ],
  controllers: [AuthController],
  providers: [AuthRepository, AuthService, { provide: APP_GUARD, useClass: AdminAuthGuard }],
  exports: [AuthRepository],
})
export class AuthModule {}
