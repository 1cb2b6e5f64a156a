/** Parses the RFC 8941 lists used by RateLimit-Policy / RateLimit: `"name";k=1;k2=2, ...`. */
export function parseSfList(value: string | null): Array<{ name: string; params: Record<string, number> }> {
  if (value === null) throw new Error('header missing');
  return value.split(/,\s*/).map((item) => {
    const match = /^"((?:[^"\\]|\\.)*)"((?:;[a-z][a-z0-9_-]*=-?\d+)*)$/.exec(item.trim());
    if (!match) throw new Error(`not a structured-field item: ${item}`);
    const params: Record<string, number> = {};
    for (const part of match[2].split(';').slice(1)) {
      const [k, v] = part.split('=');
      params[k] = Number(v);
    }
    return { name: match[1].replace(/\\(.)/g, '$1'), params };
  });
}
