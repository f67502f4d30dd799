/** Agent slugs (docs/contract/http.md): lowercase [a-z0-9-], 2–40 chars, unique, never a reserved word. */
export const RESERVED_SLUGS = new Set([
  'www',
  'api',
  'admin',
  'shared',
  'root',
  'system',
  'mcp',
  'skill',
  'heartbeat',
  'static',
  'assets',
  'healthz',
  'readyz',
  'metrics',
  'openapi',
  'login',
  'logout',
  'register',
  'settings',
  'support',
  'help',
  'about',
  'null',
  'undefined',
  'anonymous',
  'me',
  'agents',
  'users',
]);

export function baseSlug(name: string): string {
  const ascii = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/g, '');
  if (ascii.length >= 2 && !RESERVED_SLUGS.has(ascii)) return ascii;
  if (ascii.length >= 2) return `${ascii}-agent`.slice(0, 40);
  return ascii.length === 1 ? `${ascii}-agent` : 'agent';
}

/** The n-th candidate for a base: base, base-2, base-3… kept within 40 chars. */
export function slugCandidate(base: string, n: number): string {
  if (n <= 1) return base;
  const suffix = `-${n}`;
  return base.slice(0, 40 - suffix.length).replace(/-+$/g, '') + suffix;
}
