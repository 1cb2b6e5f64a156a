import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  transpilePackages: ['@tollgate/contracts'],
  // The same-origin proxy `/api/:path*` -> `${API_URL}/:path*` is in proxy.ts, not in
  // `rewrites()` here: config rewrites are frozen at build time, Proxy reads API_URL per request.
};

export default nextConfig;
