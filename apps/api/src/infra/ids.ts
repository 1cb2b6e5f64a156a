import { randomBytes } from 'node:crypto';
import { base58 } from './base58';

export type IdKind = 'plan' | 'lim' | 'key' | 'root' | 'usr' | 'ses' | 'aud' | 'wh' | 'whd';

/** Ids carry their kind (`key_...`) so a stray id in a log or URL says what it is. */
export function newId(kind: IdKind): string {
  return `${kind}_${base58(randomBytes(12))}`;
}
