/**
 * Crash safety (docs/contract/files.md#files-and-versions: "a changeset commits atomically"; §1: "nothing half-written"):
 * the server runs as a child process under a mixed write load — single-file writes that
 * overwrite each other (versions climb), bash commands writing a directory and three files in
 * one changeset, recursive copies of a directory, recursive deletes of a directory — and is
 * killed with SIGKILL at a random moment, at least five times per backend, on the same database.
 *
 * After every restart: each acknowledged write is there with its exact content and version
 * (or, for the one write per writer that was in flight on that path, the next version with the
 * in-flight content), and every multi-file changeset, acknowledged or not, is entirely present
 * or entirely absent (acknowledged ones entirely present). After the last kill, with the server
 * down: SQLite's `PRAGMA integrity_check` on the file opened read-only, and on both backends the
 * data are consistent (every head has its version row, every version's blob exists, versions
 * run 1..n, changeset seqs are unique and gap-free and match the agent's counter, every version
 * belongs to a changeset and every changeset entry to a version, storage equals the blobs' sizes).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { backends, createTestDatabase, type Backend, type TestDatabase } from '../helpers/backends.js';
import { freePort, spawnServer, type ChildServer } from '../helpers/server.js';

const KILLS = Number(process.env.CRASH_KILLS ?? 5);
const WRITERS = 6;
// The load runs up to WRITERS bash commands of one agent at once (the default allows 2).
const ENV = { BASH_MAX_CONCURRENT_PER_AGENT: String(WRITERS) };
const TEMPLATE = Array.from({ length: 8 }, (_, i) => ({ name: `t${i}.txt`, content: `template file ${i}\n`.repeat(i + 1) }));

/** A multi-file changeset: its paths, what each holds when present, and what we know of it. */
interface Group {
  kind: 'bash' | 'copy' | 'delete';
  id: string;
  /** For bash/copy: the paths the changeset creates (directory first). For delete: the paths it deletes. */
  dir: string;
  files: Array<{ path: string; content: string }>;
  /** true: acknowledged; false: refused with an error (so not applied); null: no answer (killed). */
  acked: boolean | null;
  /** Once verified after a restart: whether it took effect, its files' versions, whether their contents were read. */
  applied?: boolean;
  versions?: number[];
  contentChecked?: boolean;
}

interface Single {
  content: string;
  version: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Consistency of the stored data, through SQL, with the server down. Returns the problems found. */
async function consistency(backend: Backend, db: TestDatabase): Promise<{ problems: string[]; integrity: string; rows: Record<string, number> }> {
  const queries: Record<string, string> = {
    'node without its head version row': `
      SELECT n.agent_id, n.path, n.version FROM nodes n
        LEFT JOIN versions v ON v.agent_id = n.agent_id AND v.path = n.path AND v.version = n.version
       WHERE n.purged_at_ms IS NULL AND v.version IS NULL`,
    'head differs from its version row': `
      SELECT n.path, n.version FROM nodes n
        JOIN versions v ON v.agent_id = n.agent_id AND v.path = n.path AND v.version = n.version
       WHERE v.kind <> n.kind OR v.deleted <> n.deleted OR COALESCE(v.blob_hash, '') <> COALESCE(n.blob_hash, '')
          OR v.size <> n.size OR v.updated_at_ms <> n.updated_at_ms`,
    'version whose blob is missing': `
      SELECT v.path, v.version, v.blob_hash FROM versions v
        LEFT JOIN blobs b ON b.agent_id = v.agent_id AND b.hash = v.blob_hash
       WHERE v.blob_hash IS NOT NULL AND b.hash IS NULL`,
    'node whose blob is missing': `
      SELECT n.path, n.blob_hash FROM nodes n
        LEFT JOIN blobs b ON b.agent_id = n.agent_id AND b.hash = n.blob_hash
       WHERE n.blob_hash IS NOT NULL AND b.hash IS NULL`,
    'versions of a path not numbered 1..n': `
      SELECT agent_id, path, COUNT(*) AS c, MAX(version) AS m, MIN(version) AS lo FROM versions
       GROUP BY agent_id, path HAVING COUNT(*) <> MAX(version) OR MIN(version) <> 1`,
    'version numbers past the head': `
      SELECT v.path, v.version FROM versions v JOIN nodes n ON n.agent_id = v.agent_id AND n.path = v.path WHERE v.version > n.version`,
    'version without its changeset': `
      SELECT v.path, v.version, v.changeset_id FROM versions v
        LEFT JOIN changesets c ON c.agent_id = v.agent_id AND c.id = v.changeset_id WHERE c.id IS NULL`,
    'changeset seqs not unique, gap-free and equal to the agent counter': `
      SELECT a.id, a.last_seq, COUNT(c.seq) AS n, COUNT(DISTINCT c.seq) AS d, COALESCE(MAX(c.seq), 0) AS m, COALESCE(MIN(c.seq), 1) AS lo
        FROM agents a LEFT JOIN changesets c ON c.agent_id = a.id
       GROUP BY a.id, a.last_seq
      HAVING COUNT(c.seq) <> a.last_seq OR COUNT(DISTINCT c.seq) <> COUNT(c.seq) OR COALESCE(MAX(c.seq), 0) <> a.last_seq OR COALESCE(MIN(c.seq), 1) <> 1`,
    'storage counter differs from the blobs': `
      SELECT a.id, a.storage_bytes, COALESCE(SUM(b.size), 0) AS s FROM agents a LEFT JOIN blobs b ON b.agent_id = a.id
       GROUP BY a.id, a.storage_bytes HAVING a.storage_bytes <> COALESCE(SUM(b.size), 0)`,
  };
  const counts = {
    nodes: 'SELECT COUNT(*) AS c FROM nodes',
    versions: 'SELECT COUNT(*) AS c FROM versions',
    changesets: 'SELECT COUNT(*) AS c FROM changesets',
    blobs: 'SELECT COUNT(*) AS c FROM blobs',
  };
  const problems: string[] = [];
  const rows: Record<string, number> = {};
  let integrity = 'n/a';
  let changesets: Array<{ id: string; agent_id: string; entries: string }>;
  let versionIds: Set<string>;
  if (backend === 'sqlite') {
    const file = join(db.env.DATA_DIR!, 'afs.sqlite');
    const sql = new Database(file, { readonly: true, fileMustExist: true });
    try {
      integrity = (sql.pragma('integrity_check') as Array<{ integrity_check: string }>).map((r) => r.integrity_check).join('; ');
      const fk = sql.pragma('foreign_key_check') as unknown[];
      if (fk.length) problems.push(`foreign_key_check: ${JSON.stringify(fk).slice(0, 300)}`);
      for (const [what, q] of Object.entries(queries)) {
        const found = sql.prepare(q).all();
        if (found.length) problems.push(`${what}: ${found.length} rows, e.g. ${JSON.stringify(found.slice(0, 3))}`);
      }
      for (const [k, q] of Object.entries(counts)) rows[k] = Number((sql.prepare(q).get() as { c: number }).c);
      changesets = sql.prepare('SELECT id, agent_id, entries FROM changesets').all() as typeof changesets;
      versionIds = new Set(
        (sql.prepare('SELECT agent_id, path, version, changeset_id FROM versions').all() as any[]).map(
          (v) => `${v.agent_id}\u0000${v.path}\u0000${v.version}\u0000${v.changeset_id}`,
        ),
      );
    } finally {
      sql.close();
    }
  } else {
    const client = new pg.Client({ connectionString: db.env.DATABASE_URL });
    await client.connect();
    try {
      integrity = (await client.query('SELECT 1 AS ok')).rows.length === 1 ? 'reachable' : 'unreachable';
      for (const [what, q] of Object.entries(queries)) {
        const found = (await client.query(q)).rows;
        if (found.length) problems.push(`${what}: ${found.length} rows, e.g. ${JSON.stringify(found.slice(0, 3))}`);
      }
      for (const [k, q] of Object.entries(counts)) rows[k] = Number((await client.query(q)).rows[0].c);
      changesets = (await client.query('SELECT id, agent_id, entries FROM changesets')).rows;
      versionIds = new Set(
        (await client.query('SELECT agent_id, path, version, changeset_id FROM versions')).rows.map(
          (v: any) => `${v.agent_id}\u0000${v.path}\u0000${v.version}\u0000${v.changeset_id}`,
        ),
      );
    } finally {
      await client.end();
    }
  }
  let missing = 0;
  for (const cs of changesets) {
    for (const e of JSON.parse(cs.entries) as Array<{ path: string; toVersion: number }>) {
      if (!versionIds.has(`${cs.agent_id}\u0000${e.path}\u0000${e.toVersion}\u0000${cs.id}`)) {
        missing++;
        if (missing <= 3) problems.push(`changeset ${cs.id} entry ${e.path}@${e.toVersion} has no version row`);
      }
    }
  }
  return { problems, integrity, rows };
}

for (const backend of backends()) {
  describe(`crash safety: kill -9 under write load (${backend})`, () => {
    let db: TestDatabase;
    let port: number;
    let server: ChildServer | null = null;
    let apiKey: string;
    const singles = new Map<string, Single>();
    const groups: Group[] = [];
    let crashes = 0;
    let verifiedWrites = 0;
    let acknowledged = 0;

    before(async () => {
      db = await createTestDatabase(backend);
      port = await freePort();
    });
    after(async () => {
      await server?.kill('SIGKILL');
      await db.drop();
    });

    /** Reads a path: its content and version, or null when it is not a live file. */
    async function probe(path: string): Promise<{ content: string; version: number } | null> {
      const r = await server!.call(apiKey, 'read', { path });
      if (r.status !== 200) throw new Error(`read ${path}: HTTP ${r.status} ${JSON.stringify(r.body)}`);
      if (r.isError) {
        assert.equal(r.inner.error.code, 'NOT_FOUND', `read ${path}: ${JSON.stringify(r.inner)}`);
        return null;
      }
      return { content: r.inner.content, version: r.inner.version };
    }

    /** After a restart: the model against the server. Resolves what was in flight. */
    async function verify(inflight: Map<number, { path: string; content: string } | null>): Promise<void> {
      // Single-file writes: the acknowledged state, or the in-flight write on top of it.
      const pendingByPath = new Map<string, string>();
      for (const p of inflight.values()) if (p) pendingByPath.set(p.path, p.content);
      const paths = new Set([...singles.keys(), ...pendingByPath.keys()]);
      for (const path of paths) {
        const want = singles.get(path);
        const got = await probe(path);
        const pending = pendingByPath.get(path);
        if (pending !== undefined && got && got.content === pending && got.version === (want?.version ?? 0) + 1) {
          singles.set(path, got); // the unacknowledged write committed: it is the state from now on
        } else if (want) {
          assert.ok(got, `${path}: acknowledged version ${want.version} is gone`);
          assert.equal(got.content, want.content, `${path}: acknowledged content`);
          assert.equal(got.version, want.version, `${path}: acknowledged version`);
        } else {
          assert.equal(got, null, `${path}: never acknowledged, yet present as ${JSON.stringify(got)}`);
        }
        if (singles.has(path)) {
          const versions = await server!.ok(apiKey, 'list_versions', { path, limit: 200 });
          assert.equal(versions.currentVersion, singles.get(path)!.version);
          assert.equal(versions.versions.length, Math.min(200, singles.get(path)!.version), `${path}: every version is kept`);
          verifiedWrites++;
        }
      }
      // Multi-file changesets: all or nothing; acknowledged ones all. Presence and versions come
      // from one listing; contents are read once per file (they never change after that).
      const live = new Map<string, { type: string; version: number }>();
      for (let cursor: string | null = null; ;) {
        const page: any = await server!.ok(apiKey, 'list', { path: '/', recursive: true, ...(cursor ? { cursor } : {}) });
        for (const e of page.entries) live.set(e.path, { type: e.type, version: e.version });
        if (!page.nextCursor) break;
        cursor = page.nextCursor;
      }
      for (const g of groups) {
        const states: boolean[] = [];
        for (const f of g.files) {
          const e = live.get(f.path);
          if (e) assert.equal(e.type, 'file', `${g.kind} ${g.id}: ${f.path} is a ${e.type}`);
          if (e && !g.contentChecked) {
            const got = await probe(f.path);
            assert.equal(got?.content, f.content, `${g.kind} ${g.id}: ${f.path} holds other content`);
            assert.equal(got?.version, e.version);
          }
          states.push(e !== undefined);
        }
        states.push(live.get(g.dir)?.type === 'directory');
        const present = states.every(Boolean);
        const absent = states.every((x) => !x);
        const where = `${g.kind} changeset ${g.id} (acknowledged: ${g.acked}): ${g.files.length} files + dir, present: ${states.join(',')}`;
        assert.ok(present || absent, `${where}: half-applied`);
        // For a delete, "applied" means the files are gone.
        const applied = g.kind === 'delete' ? absent : present;
        if (g.acked === true) assert.ok(applied, `${where}: acknowledged but not applied`);
        if (g.acked === false) assert.ok(!applied, `${where}: refused but applied`);
        if (g.applied !== undefined) assert.equal(applied, g.applied, `${where}: changed since the last restart`);
        const versions = g.files.map((f) => live.get(f.path)?.version ?? 0);
        if (g.versions) assert.deepEqual(versions, g.versions, `${where}: versions changed since the last restart`);
        g.versions = versions;
        g.applied = applied;
        if (present) g.contentChecked = true;
        verifiedWrites += g.files.length;
      }
    }

    /** One round: load, a kill -9 at a random moment, a restart and the verification. */
    async function round(r: number): Promise<void> {
      // Directories for this round's recursive deletes, each created (and acknowledged) in one changeset.
      const deletable: Group[] = [];
      for (let i = 0; i < 4; i++) {
        const dir = `/del/r${r}d${i}`;
        const files = [0, 1, 2, 3].map((k) => ({ path: `${dir}/f${k}.txt`, content: `delete me r${r} d${i} f${k}\n` }));
        const cmd = `mkdir -p ${dir} && ${files.map((f) => `echo '${f.content.trim()}' > ${f.path}`).join(' && ')}`;
        const out = await server!.ok(apiKey, 'bash', { command: cmd });
        assert.ok(out.changesetId, `setup ${dir}: ${JSON.stringify(out)}`);
        deletable.push({ kind: 'delete', id: dir, dir, files, acked: null });
      }

      const inflight = new Map<number, { path: string; content: string } | null>();
      let acks = 0;
      let stop = false;
      let dead = false;
      const failures: unknown[] = [];
      const writers = Array.from({ length: WRITERS }, async (_, w) => {
        for (let i = 0; !stop; i++) {
          const pick = Math.floor(Math.random() * 10);
          try {
            if (pick < 5) {
              const path = `/w/w${w}/f${i % 4}.txt`;
              const content = `round ${r} writer ${w} write ${i}\n`.repeat(1 + ((i * 7) % 40));
              inflight.set(w, { path, content });
              const res = await server!.call(apiKey, 'write', { path, content });
              inflight.set(w, null);
              assert.equal(res.status, 200, JSON.stringify(res.body));
              assert.equal(res.inner.success, true, JSON.stringify(res.inner));
              singles.set(path, { content, version: res.inner.version });
            } else if (pick < 7) {
              const id = `r${r}w${w}i${i}`;
              const dir = `/b/${id}`;
              const files = ['a', 'b', 'c'].map((n) => ({ path: `${dir}/${n}.txt`, content: `bash ${id} ${n}\n` }));
              const g: Group = { kind: 'bash', id, dir, files, acked: null };
              groups.push(g);
              const res = await server!.call(apiKey, 'bash', {
                command: `mkdir -p ${dir} && ${files.map((f) => `echo '${f.content.trim()}' > ${f.path}`).join(' && ')}`,
              });
              assert.equal(res.status, 200, JSON.stringify(res.body));
              g.acked = res.inner.success === true && res.inner.changesetId !== null && res.inner.exitCode === 0;
            } else if (pick < 9) {
              const id = `r${r}w${w}i${i}`;
              const dir = `/c/${id}`;
              const g: Group = { kind: 'copy', id, dir, files: TEMPLATE.map((t) => ({ path: `${dir}/${t.name}`, content: t.content })), acked: null };
              groups.push(g);
              const res = await server!.call(apiKey, 'copy', { from: '/tpl', to: dir });
              assert.equal(res.status, 200, JSON.stringify(res.body));
              g.acked = res.inner.success === true;
            } else {
              const g = deletable.shift();
              if (!g) continue;
              groups.push(g);
              const res = await server!.call(apiKey, 'delete', { path: g.dir, recursive: true });
              assert.equal(res.status, 200, JSON.stringify(res.body));
              g.acked = res.inner.success === true;
            }
            acks++;
            acknowledged++;
          } catch (err) {
            // fetch fails with a TypeError when the connection is refused or reset by the kill:
            // that request is unacknowledged. Anything else is a real failure.
            if (dead && err instanceof TypeError) return;
            failures.push(err);
            stop = true;
            return;
          }
        }
      });
      // Kill at a random moment once the load is under way.
      for (let waited = 0; acks < 15 && waited < 15_000 && !failures.length; waited += 10) await sleep(10);
      await sleep(Math.random() * 400);
      if (failures.length) {
        stop = true;
        await Promise.all(writers);
        throw failures[0];
      }
      dead = true;
      await server!.kill('SIGKILL');
      stop = true;
      await Promise.all(writers);
      if (failures.length) throw failures[0];
      crashes++;
      // Deletes prepared but never attempted must still be whole.
      for (const g of deletable) groups.push({ ...g, acked: false });

      server = await spawnServer({ ...db.env, ...ENV }, port);
      await verify(inflight);
    }

    it(`survives ${KILLS} kills at random moments: acknowledged writes intact, multi-file changesets all-or-nothing, storage consistent`, async () => {
      const started = Date.now();
      server = await spawnServer({ ...db.env, ...ENV }, port);
      apiKey = (await server.register('Crash Test')).apiKey;
      for (const t of TEMPLATE) await server.ok(apiKey, 'write', { path: `/tpl/${t.name}`, content: t.content });

      for (let r = 1; r <= KILLS; r++) await round(r);
      assert.equal(crashes, KILLS);
      const committedGroups = groups.filter((g) => g.applied && g.acked !== true).length;

      // The last state once more, with the server down: integrity and consistency through SQL.
      await server!.kill('SIGKILL');
      crashes++;
      const c = await consistency(backend, db);
      if (backend === 'sqlite') assert.equal(c.integrity, 'ok', 'PRAGMA integrity_check');
      assert.deepEqual(c.problems, [], 'the stored data are consistent');
      assert.ok(c.rows.changesets! > 50 && c.rows.versions! > c.rows.changesets!, JSON.stringify(c.rows));

      server = await spawnServer({ ...db.env, ...ENV }, port);
      await verify(new Map());
      await server.kill('SIGTERM');
      server = null;
      assert.ok(
        singles.size >= WRITERS * 2 && groups.filter((g) => g.acked === true).length >= KILLS,
        `${singles.size} files, ${groups.length} changesets`,
      );
      console.log(
        `# crash (${backend}): ${crashes} kill -9 survived, ${acknowledged} writes acknowledged, ${verifiedWrites} file states verified ` +
          `(${singles.size} overwritten files, ${groups.length} multi-file changesets of which ${committedGroups} committed without an answer); ` +
          `integrity ${c.integrity}; ${JSON.stringify(c.rows)}; ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
    });
  });
}
