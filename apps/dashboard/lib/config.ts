/** Server-side settings. Read at request time, so `API_URL` can change without a rebuild. */

export const DEFAULT_API_URL = 'http://127.0.0.1:3000';

/** Name of the session cookie the API sets on POST /v1/auth/login (HttpOnly, SameSite=Lax). */
export const SESSION_COOKIE = 'tollgate_session';

/** Base URL of the Tollgate API as seen from the dashboard's server, without a trailing slash. */
export function apiUrl(): string {
  return (process.env.API_URL || DEFAULT_API_URL).replace(/\/+$/, '');
}

/** Browser-side base: the same-origin proxy declared in next.config.ts (`/api/*` -> API_URL). */
export const BROWSER_API_BASE = '/api';

/** Request header proxy.ts sets to the page's path and query, so layouts can build `?next=`. */
export const PATH_HEADER = 'x-tollgate-path';
