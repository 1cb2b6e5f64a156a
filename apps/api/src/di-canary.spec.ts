import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { describe, expect, it } from 'vitest';

// vitest transpiles with SWC so that emitDecoratorMetadata survives. If it ever regresses to
// esbuild, constructor injection silently yields undefined: this test is the canary for that.
@Injectable()
class Clock {
  now() {
    return 42;
  }
}

@Injectable()
class UsesClock {
  constructor(readonly clock: Clock) {}
}

@Module({ providers: [Clock, UsesClock] })
class CanaryModule {}

describe('dependency injection under vitest', () => {
  it('resolves a constructor-injected provider', async () => {
    const context = await NestFactory.createApplicationContext(CanaryModule, { logger: false });
    const consumer = context.get(UsesClock);
    expect(consumer.clock).toBeInstanceOf(Clock);
    expect(consumer.clock.now()).toBe(42);
    await context.close();
  });
});
