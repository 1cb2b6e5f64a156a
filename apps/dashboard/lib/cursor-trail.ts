/**
 * Cursor pagination with a way back: the URL keeps the cursors of the pages walked so far
 * (`?trail=c1.c2`), the last one being the current page. Cursors are base64url, so "." is safe.
 */

export function parseTrail(value: string | undefined): string[] {
  return value ? value.split('.').filter(Boolean).slice(-50) : [];
}

export function currentCursor(trail: string[]): string | undefined {
  return trail.at(-1);
}

export function nextTrail(trail: string[], nextCursor: string): string {
  return [...trail, nextCursor].join('.');
}

export function previousTrail(trail: string[]): string {
  return trail.slice(0, -1).join('.');
}
