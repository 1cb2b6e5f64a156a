import { createHash, randomBytes } from 'node:crypto';
import { base58 } from '../infra/base58';

export const DEFAULT_KEY_PREFIX = 'tg';
export const ROOT_KEY_PREFIX = 'tgr';
const SECRET_BYTES = 24;

export interface IssuedSecret {
  /** The plaintext: returned to the caller once, never stored, never logged. */
  secret: string;
  /** SHA-256 (hex) of the plaintext: what we store and look up by. */
  hash: string;
  /** The first 8 characters, for display. */
  start: string;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function issueSecret(prefix: string = DEFAULT_KEY_PREFIX): IssuedSecret {
  const secret = `${prefix}_${base58(randomBytes(SECRET_BYTES))}`;
  return { secret, hash: hashSecret(secret), start: secret.slice(0, 8) };
}
