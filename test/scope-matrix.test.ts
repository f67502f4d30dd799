/**
 * The scope matrix (docs/contract/keys.md): every registered tool × every preset (full, read-only, files,
 * files-read) and a key with no scopes. A key whose scopes cover the tool's declared scopes is
 * never refused with INSUFFICIENT_SCOPE; any other key always is, with details.required equal to
 * the tool's scopes. Read-only keys cannot change anything. Runs on both backends.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PRESETS } from '../src/core/scopes.js';
import { buildRegistry } from '../src/tools/index.js';
import type { AnyTool } from '../src/tools/registry.js';
import { backends } from './helpers/backends.js';
import { assertEnvelope } from './helpers/assert-envelope.js';
import { startServer, type TestServer } from './helpers/server.js';

const registry = buildRegistry();
const KEY_KINDS = ['full', 'read-only', 'files', 'files-read', 'no scopes'] as const;
type KeyKind = (typeof KEY_KINDS)[number];

/** Minimal inputs that reach the handler without side effects on other keys. Other tools: their first example. */
const MINIMAL: Record<string, unknown> = {
  write: { path: '/m/w.txt', content: 'x' },
  read: { path: '/m/a.txt' },
  stat: { path: '/m/a.txt' },
  list: { path: '/' },
  mkdir: { path: '/m/dir' },
  delete: { path: '/m/missing.txt' },
  edit: { path: '/m/a.txt', old_string: 'not there', new_string: 'y' },
  append: { path: '/m/append.txt', content: 'x\n' },
  move: { from: '/m/missing.txt', to: '/m/missing2.txt' },
  copy: { from: '/m/a.txt', to: '/m/copy.txt', overwrite: true },
  list_versions: { path: '/m/a.txt' },
  diff: { path: '/m/a.txt', from: 1 },
  restore: { path: '/m/a.txt', version: 1 },
  list_changes: {},
  revert_changeset: { changesetId: 'cs_DoesNotExist00000000000', dryRun: true },
  list_deleted: {},
  purge: { path: '/m/missing.txt', confirm: true },
  get_key_info: {},
  create_key: { label: 'matrix', scopes: [] },
  list_keys: {},
  revoke_key: { keyId: 'key_DoesNotExist0000000000' },
  rotate_key: { keyId: 'key_DoesNotExist0000000000' },
};

function minimalInput(tool: AnyTool): unknown {
  if (tool.name in MINIMAL) return MINIMAL[tool.name];
  const ex = tool.examples[0];
  assert.ok(ex, `${tool.name} has an example to call it with`);
  // Placeholders of things earlier examples made (helpers/example-inputs.ts) name nothing here.
  return JSON.parse(
    JSON.stringify(ex.input).replace(/\b(cs|key|shr|lnk|pub)_EXAMPLE\b/g, (_m, p: string) => `${p}_DoesNotExist${'0'.repeat(13 - p.length)}`),
  );
}

const scopesOf = (kind: KeyKind): string[] => (kind === 'no scopes' ? [] : PRESETS[kind]!);
/** Outputs show only the scopes some tool needs (full-access tools aside: they need every scope). */
const IN_USE = new Set<string>(registry.all().flatMap((t) => (t.fullAccess ? [] : t.scopes)));
const shown = (scopes: readonly string[]) => scopes.filter((x) => IN_USE.has(x));
const covers = (granted: readonly string[], required: readonly string[]) => required.every((s) => granted.includes(s));
const changes = (s: string) => s.endsWith(':write') || s.endsWith(':delete');

describe('scope declarations', () => {
  it('annotations agree with scopes: a readOnly tool never needs a write/delete scope', () => {
    for (const tool of registry.all()) {
      if (tool.annotations.readOnly) assert.ok(!tool.scopes.some(changes), `${tool.name} is readOnly but needs ${tool.scopes.join(', ')}`);
      if (tool.scopes.some(changes)) assert.equal(tool.annotations.readOnly, false, tool.name);
    }
  });
});

for (const backend of backends()) {
  describe(`scope matrix (${backend})`, () => {
    let s: TestServer;
    let owner: string;
    const keys = new Map<KeyKind, string>();
    before(async () => {
      s = await startServer(backend, {}, { via: 'inject' });
      owner = (await s.register('Scope Matrix')).apiKey;
      await s.ok(owner, 'write', { path: '/m/a.txt', content: 'a\n' });
      for (const kind of KEY_KINDS) {
        const input = kind === 'no scopes' ? { label: kind, scopes: [] } : { label: kind, preset: kind };
        const minted = await s.ok(owner, 'create_key', input);
        assert.deepEqual(minted.scopes, shown(scopesOf(kind)), kind);
        keys.set(kind, minted.apiKey);
      }
    });
    after(() => s.close());

    it(`every tool × ${KEY_KINDS.join(', ')}: INSUFFICIENT_SCOPE exactly when the key lacks a declared scope`, async () => {
      const problems: string[] = [];
      let checked = 0;
      for (const tool of registry.all()) {
        for (const kind of KEY_KINDS) {
          const granted = scopesOf(kind);
          const r = await s.call(keys.get(kind)!, tool.name, minimalInput(tool));
          const where = `${tool.name} [${tool.scopes.join(' + ') || 'no scope'}] with ${kind} key`;
          checked++;
          if (r.status !== 200) {
            problems.push(`${where}: HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
            continue;
          }
          assertEnvelope(r, r.isError ? 'error' : 'success');
          const code = r.isError ? r.inner.error.code : null;
          if (covers(granted, tool.scopes)) {
            if (code === 'INSUFFICIENT_SCOPE') {
              problems.push(
                `${where}: covered by the key, yet INSUFFICIENT_SCOPE: ${r.inner.error.message} ${JSON.stringify(r.inner.error.details)}`,
              );
            }
          } else if (code !== 'INSUFFICIENT_SCOPE') {
            problems.push(`${where}: expected INSUFFICIENT_SCOPE, got ${code ?? 'success'}`);
          } else {
            const d = r.inner.error.details;
            try {
              if (tool.fullAccess) {
                // Needs the full-access key: said as such, not as a list of every scope.
                assert.equal(d.required.fullAccess, true);
                assert.deepEqual(d.granted.scopes, shown(granted));
                assert.match(r.inner.error.message, /full-access key/);
              } else {
                assert.deepEqual(d.required, tool.scopes);
                assert.deepEqual(d.granted, shown(granted));
                assert.deepEqual(
                  d.missing,
                  tool.scopes.filter((x) => !granted.includes(x)),
                );
                for (const m of d.missing) assert.ok(r.inner.error.message.includes(m), `message names ${m}`);
              }
            } catch (err) {
              problems.push(`${where}: details ${JSON.stringify(d)}: ${(err as Error).message.split('\n')[0]}`);
            }
          }
        }
      }
      assert.equal(checked, registry.all().length * KEY_KINDS.length);
      assert.deepEqual(problems, [], `${problems.length} of ${checked} tool × key checks failed:\n${problems.join('\n')}`);
    });

    it('a read-only key cannot change anything: every changing tool → INSUFFICIENT_SCOPE, and no state changed', async () => {
      const ro = keys.get('read-only')!;
      const snapshot = async () => ({
        changes: (await s.ok(owner, 'list_changes', { limit: 100 })).changesets.map((c: any) => c.changesetId),
        keys: (await s.ok(owner, 'list_keys')).keys.map((k: any) => [k.keyId, k.revokedAt]),
        files: (await s.ok(owner, 'list', { path: '/', recursive: true })).entries.map((e: any) => [e.path, e.version]),
      });
      const before = await snapshot();
      const writers = registry.all().filter((t) => !t.annotations.readOnly && t.scopes.some(changes));
      assert.ok(writers.length >= 10, `changing tools found: ${writers.map((t) => t.name).join(', ')}`);
      for (const tool of writers) {
        const inputs = [minimalInput(tool), ...tool.examples.map((e) => e.input)];
        for (const input of inputs) {
          const r = await s.call(ro, tool.name, input);
          assert.equal(r.status, 200, tool.name);
          assert.equal(
            r.inner?.error?.code,
            'INSUFFICIENT_SCOPE',
            `${tool.name} ${JSON.stringify(input).slice(0, 100)}: ${JSON.stringify(r.body).slice(0, 300)}`,
          );
          assert.deepEqual(
            r.inner.error.details.required,
            tool.fullAccess ? { fullAccess: true, folder: null, expiresAt: null } : tool.scopes,
            tool.name,
          );
        }
      }
      // With an idempotencyKey the call goes through the same check.
      await s.fail(ro, 'write', { path: '/m/x.txt', content: 'x', idempotencyKey: 'ro-1' }, 'INSUFFICIENT_SCOPE');
      // bash needs only files:read; commands that would change files fail like on a read-only filesystem.
      if (registry.get('bash')) {
        for (const command of [
          'mkdir /m/ro',
          'touch /m/new.txt',
          'echo x > /m/ro.txt',
          'rm /m/a.txt',
          'mv /m/a.txt /m/b.txt',
          'cp /m/a.txt /m/c.txt',
        ]) {
          const r = await s.ok(ro, 'bash', { command });
          assert.notEqual(r.exitCode, 0, `${command}: ${JSON.stringify(r)}`);
          assert.ok(r.stderr.length > 0, `${command}: says why on stderr`);
          assert.equal(r.changesetId ?? null, null, command);
        }
      }
      assert.deepEqual(await snapshot(), before, 'a read-only key changed nothing');
    });
  });
}
