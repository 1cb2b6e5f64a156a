import { ApiError } from './api-error';

/** Opaque keyset cursor: base64url of "<ISO time>|<id>". Stable under inserts, unlike offsets. */
export function encodeCursor(at: Date, id: string): string {
  return Buffer.from(`${at.toISOString()}|${id}`).toString('base64url');
}

export function decodeCursor(cursor: string, path: string): { at: Date; id: string } {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const [iso, id] = text.split('|');
  const at = new Date(iso ?? '');
  if (!id || Number.isNaN(at.getTime())) throw ApiError.validation([{ path, message: 'is not a cursor this API returned' }]);
  return { at, id };
}
