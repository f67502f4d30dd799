/**
 * Scopes (contract §2). A key holds a set of scope strings; a tool requires a set. Bare
 * family names expand to every action of the family, presets expand to scope sets.
 */
export const ALL_SCOPES = [
  'files:read',
  'files:write',
  'files:delete',
  'shares:read',
  'shares:write',
  'community:read',
  'community:write',
  'social:read',
  'social:write',
  'search',
  'agents:read',
  'agents:write',
] as const;
export type Scope = (typeof ALL_SCOPES)[number];

const FAMILIES: Record<string, Scope[]> = {
  files: ['files:read', 'files:write', 'files:delete'],
  shares: ['shares:read', 'shares:write'],
  community: ['community:read', 'community:write'],
  social: ['social:read', 'social:write'],
  agents: ['agents:read', 'agents:write'],
  search: ['search'],
};

export const PRESETS: Record<string, Scope[]> = {
  full: [...ALL_SCOPES],
  'read-only': ALL_SCOPES.filter((s) => s.endsWith(':read') || s === 'search'),
  files: ['files:read', 'files:write', 'files:delete'],
  'files-read': ['files:read'],
};

export function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value);
}

/** Expands family names to their scopes, dedupes and sorts into canonical order. Unknown → throws. */
export function expandScopes(input: readonly string[]): Scope[] {
  const set = new Set<Scope>();
  for (const raw of input) {
    const family = FAMILIES[raw];
    if (family) family.forEach((s) => set.add(s));
    else if (isScope(raw)) set.add(raw);
    else throw new Error(`unknown scope '${raw}'`);
  }
  return ALL_SCOPES.filter((s) => set.has(s));
}

export function missingScopes(required: readonly Scope[], granted: readonly Scope[]): Scope[] {
  return required.filter((s) => !granted.includes(s));
}

/** A key is read-only when it cannot modify anything: no ':write'/':delete' scopes. */
export function isReadOnly(granted: readonly Scope[]): boolean {
  return !granted.some((s) => s.endsWith(':write') || s.endsWith(':delete'));
}

export function isFullScope(granted: readonly Scope[]): boolean {
  return ALL_SCOPES.every((s) => granted.includes(s));
}
