import { NextResponse, type NextRequest } from 'next/server';
import { apiUrl, PATH_HEADER } from './lib/config';

/**
 * 1. Same-origin proxy to the API: `/api/:path*` -> `${API_URL}/:path*`.
 *
 * The browser only ever talks to the dashboard origin, so the API's HttpOnly session cookie
 * (set on POST /v1/auth/login) lands on this origin and is sent back on every `/api/*` call.
 * This lives here rather than in `next.config.ts` `rewrites()` because config rewrites are
 * frozen into `.next/routes-manifest.json` at build time (and Nx caches builds), whereas
 * Proxy runs per request and so honours the `API_URL` the server was started with.
 *
 * 2. For pages: passes the requested path on as a request header, so the signed-in layout can
 * send an expired session to `/login?next=<that path>`.
 */
export function proxy(request: NextRequest) {
  const { pathname, search } = request.nextUrl;
  if (pathname === '/api' || pathname.startsWith('/api/')) {
    const target = new URL(`${apiUrl()}${pathname.slice('/api'.length) || '/'}${search}`);
    return NextResponse.rewrite(target);
  }
  const headers = new Headers(request.headers);
  headers.set(PATH_HEADER, `${pathname}${search}`);
  return NextResponse.next({ request: { headers } });
}

export const config = {
  matcher: ['/api/:path*', '/((?!_next/static|_next/image|favicon.ico|login).*)'],
};
