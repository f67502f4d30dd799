/**
 * Scopes (docs/contract/keys.md). A key holds a set of scope strings; a tool requires a set. Bare
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

// Maps, not object literals: client strings are looked up in them, and a plain object answers
// '__proto__', 'constructor' or 'toString' with something that is not a scope list.
const FAMILIES: ReadonlyMap<string, readonly Scope[]> = new Map<string, readonly Scope[]>([
  ['files', ['files:read', 'files:write', 'files:delete']],
  ['shares', ['shares:read', 'shares:write']],
  ['community', ['community:read', 'community:write']],
  ['social', ['social:read', 'social:write']],
  ['agents', ['agents:read', 'agents:write']],
  ['search', ['search']],
]);
export const FAMILY_NAMES: readonly string[] = [...FAMILIES.keys()];

const isReadScope = (s: Scope) => s.endsWith(':read') || s === 'search';

export const PRESET_NAMES = ['full', 'read-only', 'files', 'files-read'] as const;
export type PresetName = (typeof PRESET_NAMES)[number];
export const PRESETS: Readonly<Record<PresetName, Scope[]>> = Object.freeze({
  full: [...ALL_SCOPES],
  'read-only': ALL_SCOPES.filter(isReadScope),
  files: ['files:read', 'files:write', 'files:delete'],
  'files-read': ['files:read'],
});

export function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value);
}

/** Thrown by expandScopes for a name that is neither a scope nor a family. */
export class UnknownScope extends Error {
  constructor(readonly scope: string) {
    super(`unknown scope ${JSON.stringify(scope.length > 40 ? scope.slice(0, 40) + '…' : scope)}`);
    this.name = 'UnknownScope';
  }
}

/** Expands family names to their scopes, dedupes and sorts into canonical order. Unknown → throws UnknownScope. */
export function expandScopes(input: readonly string[]): Scope[] {
  const set = new Set<Scope>();
  for (const raw of input) {
    const family = FAMILIES.get(raw);
    if (family) family.forEach((s) => set.add(s));
    else if (isScope(raw)) set.add(raw);
    else throw new UnknownScope(raw);
  }
  return ALL_SCOPES.filter((s) => set.has(s));
}

/** The scopes that only read: what a key keeps during its rotation grace period. */
export function readScopes(granted: readonly Scope[]): Scope[] {
  return granted.filter(isReadScope);
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

/**
 * The agent's full-access key: every scope, no folder, no expiry, no scheduled revocation. The
 * one definition behind purge, managing every key, and get_key_info's fullAccess. A key with
 * every scope but a folder or an expiry is a restricted key: it must not reach what the owner's
 * key reaches (and a key in its rotation grace period has only its read scopes anyway).
 */
export function isFullAccess(key: {
  scopes: readonly Scope[];
  folder: string | null;
  expiresAtMs: number | null;
  revokedAtMs?: number | null;
}): boolean {
  return isFullScope(key.scopes) && key.folder === null && key.expiresAtMs === null && (key.revokedAtMs ?? null) === null;
}
