/**
 * The methods each route path answers, so that a request with another method is told so: 405 with
 * an `Allow` header instead of the router's 404, which reads as "no such resource" (a PUT to an
 * existing key would otherwise say the key does not exist). Filled from Fastify's onRoute hook;
 * only consulted on the not-found path, never for a request that matched a route.
 */
export class AllowedMethods {
  private readonly routes: { pattern: RegExp; methods: Set<string> }[] = [];

  add(methods: string | string[], url: string): void {
    const source = patternSource(url);
    let route = this.routes.find((candidate) => candidate.pattern.source === source);
    if (!route) {
      route = { pattern: new RegExp(source), methods: new Set() };
      this.routes.push(route);
    }
    for (const method of Array.isArray(methods) ? methods : [methods]) route.methods.add(method.toUpperCase());
  }

  /** The methods some route answers at this path (query string ignored), sorted; empty if none. */
  for(url: string): string[] {
    const path = url.split('?', 1)[0];
    const methods = new Set<string>();
    for (const route of this.routes) if (route.pattern.test(path)) for (const method of route.methods) methods.add(method);
    return [...methods].sort();
  }
}

/** `/v1/keys/:id/rotate` -> `^/v1/keys/[^/]+/rotate$`; a `*` matches the rest of the path. */
function patternSource(url: string): string {
  const segments = url.split('/').map((segment) => {
    if (segment.startsWith(':')) return '[^/]+';
    if (segment === '*') return '.*';
    return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  });
  return `^${segments.join('/')}$`;
}
