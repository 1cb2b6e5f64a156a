import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { VerifyInputSchema, type Verification } from '@tollgate/contracts';
import { KeyVerifier } from '@tollgate/nest-guard';
import type { z } from 'zod';
import { ApiError } from '../http/api-error';
import { ZodValidationPipe } from '../http/zod-validation.pipe';
import { toVerification } from './verification-mapper';

@Controller('v1/keys/verify')
export class VerifyController {
  constructor(private readonly verifier: KeyVerifier) {}

  /**
   * Looks the key up (cached), applies its limits and quota in one Redis round trip and answers
   * 200 for every key, valid or not; only a store outage under failMode "closed" is an error.
   */
  @Post()
  @HttpCode(200)
  async verify(@Body(new ZodValidationPipe(VerifyInputSchema)) body: z.output<typeof VerifyInputSchema>): Promise<Verification> {
    const result = await this.verifier.verify(body.key, { cost: body.cost ?? 1 });
    if (result.storeUnavailable) throw new ApiError(503, 'STORE_UNAVAILABLE', 'The rate-limit store is unavailable; try again shortly.');
    return toVerification(result);
  }
}
