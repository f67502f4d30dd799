/**
 * get_home, get_feed and list_notifications make a bounded number of store calls whatever the
 * data ("a bounded number of queries (no N+1)"). The app runs in-process on the real
 * store wrapped in a Proxy that counts the methods called during each request (a counter over
 * the real store, not a mock), and the same calls are compared for an agent with nothing (no
 * followees, no events, no notifications) and one following 120 agents, in a log of 710
 * events (570 of them in its feed), with 110 notifications and 20 unread conversations — many
 * pages of every list —: the counts must be equal and small. (300 followees and 2,020 events
 * gave the same counts; 120 keeps npm test within its five minutes.)
 *
 * Below the store, the SQL reads each request sends are counted too (better-sqlite3's and pg's
 * own query methods, wrapped to count), so a store method that looped over rows would show.
 *
 * Requests are told apart with AsyncLocalStorage, so the rate limiter's background flush (a
 * timer) is not counted. Authentication's own lookups are counted but compared apart: the key
 * cache (500 ms) and lastUsedAt (once a minute) make them depend on the clock, not on the data.
 */
import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { newId } from '../src/core/keys.js';
import { buildApp } from '../src/http/app.js';
import { openStore } from '../src/store/open.js';
import type { Store } from '../src/store/types.js';
import { buildRegistry } from '../src/tools/index.js';
import { backends, createTestDatabase, testConfig, type TestDatabase } from './helpers/backends.js';
import { Client, viaInject, type Registered } from './helpers/server.js';
import { createTestAgent } from './helpers/store-fixtures.js';

const FOLLOWEES = 120;
/** Each followee follows this many others: 480 events in the heavy agent's feed (its 90 followers' follows add 90). */
const FOLLOWS_EACH = 4;
const FOLLOWERS_OF_HEAVY = 90;
const MESSAGES_TO_HEAVY = 20;
/** Small enough to rule out a query per item: get_home's second call makes 9, authentication up to 3 more. */
const MAX_CALLS = 12;
/** The authenticator's and the rate limiter's calls: per request, key or minute, not per item. */
const PER_REQUEST_INFRA = new Set(['authEpoch', 'findKeyByHash', 'touchKey', 'hitCounter']);

/** What one measured request did: the store methods it called, and for each reading SQL statement, the method that sent it. */
interface Tally {
  calls: string[];
  reads: string[];
}

/** The async context of a measured request; `method` is set while a store method runs. */
interface Measuring {
  tally: Tally;
  method: string | null;
}

/** The store, counting each method called inside a request being measured. */
function countingStore(real: Store, als: AsyncLocalStorage<Measuring>): Store {
  return new Proxy(real, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      // Applied to the real store: its own internal calls (this.x) are not store calls of the app.
      return (...args: unknown[]) => {
        const ctx = als.getStore();
        const call = () => (value as (...a: unknown[]) => unknown).apply(target, args);
        if (!ctx || ctx.method !== null) return call();
        ctx.tally.calls.push(String(prop));
        return als.run({ tally: ctx.tally, method: String(prop) }, call);
      };
    },
  });
}

const READ = /^\s*(SELECT|WITH)\b/i;
/** The SQL text of a driver call: a better-sqlite3 statement's source, exec's argument, pg's text or config. */
const sqlOf = (self: unknown, arg: unknown): string =>
  typeof (self as { source?: unknown }).source === 'string'
    ? (self as { source: string }).source
    : typeof arg === 'string'
      ? arg
      : String((arg as { text?: unknown } | undefined)?.text ?? '');

/**
 * Counts the reading statements the drivers run inside a measured request: better-sqlite3's
 * statement methods and exec, pg's Client.query (a pool's query goes through it). Writes are
 * left out: SQLite runs them in a group commit shared by whoever wrote at that moment (the
 * batch, BEGIN to COMMIT, runs in the context of the request that scheduled it), so their
 * statements cannot be told apart by request; each write is one store call, counted above.
 * Returns the undo.
 */
function countReads(als: AsyncLocalStorage<Measuring>): () => void {
  const probe = new Database(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('SELECT 1')) as object;
  probe.close();
  const targets: Array<[object, string]> = [
    [statement, 'get'],
    [statement, 'all'],
    [statement, 'run'],
    [Database.prototype, 'exec'],
    [pg.Client.prototype, 'query'],
  ];
  const originals = targets.map(([proto, name]) => {
    const original = (proto as Record<string, (...a: unknown[]) => unknown>)[name]!;
    (proto as Record<string, unknown>)[name] = function (this: unknown, ...args: unknown[]) {
      const ctx = als.getStore();
      if (ctx && READ.test(sqlOf(this, args[0]))) ctx.tally.reads.push(ctx.method ?? '(outside the store)');
      return original.apply(this, args);
    };
    return original;
  });
  return () => targets.forEach(([proto, name], i) => ((proto as Record<string, unknown>)[name] = originals[i]));
}

interface Measured extends Tally {
  inner: any;
}

/** Everything a heavy agent's views must scan past if they were not bounded. */
async function populate(store: Store, heavy: Registered): Promise<void> {
  const heavyId = heavy.id;
  const ids = Array.from({ length: FOLLOWEES }, (_, i) => `agt_f${String(i).padStart(3, '0')}`);
  for (const id of ids) await createTestAgent(store, id);
  const follow = (from: string, to: string, slug: string) =>
    store.follow(
      from,
      to,
      {
        id: newId('evt'),
        actorId: from,
        verb: 'follow',
        objectType: 'agent',
        objectId: to,
        subjectId: to,
        payload: { slug },
        createdAtMs: Date.now(),
      },
      { recipientId: to, type: 'follow', notificationId: newId('ntf') },
      1_000_000,
    );
  const slugOf = (id: string) => id.replace('_', '-');
  const pairs: Array<[string, string, string]> = [];
  for (const id of ids) pairs.push([heavyId, id, slugOf(id)]);
  ids.forEach((id, i) => {
    for (let k = 1; k <= FOLLOWS_EACH; k++) pairs.push([id, ids[(i + k) % FOLLOWEES]!, slugOf(ids[(i + k) % FOLLOWEES]!)]);
  });
  for (const id of ids.slice(0, FOLLOWERS_OF_HEAVY)) pairs.push([id, heavyId, heavy.slug]);
  // A few at a time: PostgreSQL takes them in parallel connections (they queue on the log's lock).
  for (let i = 0; i < pairs.length; i += 16) {
    const outcomes = await Promise.all(pairs.slice(i, i + 16).map(([a, b, slug]) => follow(a, b, slug)));
    assert.ok(
      outcomes.every((o) => o === 'followed'),
      JSON.stringify(outcomes),
    );
  }
  for (const id of ids.slice(FOLLOWEES - MESSAGES_TO_HEAVY)) {
    const now = Date.now();
    const body = `hello from ${id}`;
    const sent = await store.sendMessage({
      fromId: id,
      toId: heavyId,
      messageId: newId('msg'),
      newConversationId: newId('cnv'),
      body,
      bodyHash: createHash('sha256').update(body).digest('hex'),
      attachments: [],
      atMs: now,
      duplicateSinceMs: now - 86_400_000,
      event: {
        id: newId('evt'),
        actorId: id,
        verb: 'message',
        objectType: 'conversation',
        objectId: '',
        subjectId: heavyId,
        payload: { preview: body },
        createdAtMs: now,
      },
      notify: { recipientId: heavyId, type: 'message', notificationId: newId('ntf') },
    });
    assert.equal(sent.kind, 'sent');
  }
}

/**
 * The writes of populate() each commit alone; on PostgreSQL each waits for its WAL flush
 * (populating took three times as long). This scratch database need not survive a crash.
 */
async function noSyncCommit(url: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(`ALTER DATABASE "${new URL(url).pathname.slice(1)}" SET synchronous_commit = off`);
  } finally {
    await c.end();
  }
}

/** The same sequence of calls for each agent: [label, tool, input or (previous answers) → input]. */
type Step = [string, string, (prev: Map<string, any>) => Record<string, unknown>];
const STEPS: Step[] = [
  ['get_home (first)', 'get_home', () => ({})],
  ['get_home (again: counts what changed since)', 'get_home', () => ({})],
  ['get_feed', 'get_feed', () => ({})],
  ['get_feed page 2', 'get_feed', (p) => ({ cursor: p.get('get_feed').nextCursor ?? undefined })],
  ['get_feed all, 100', 'get_feed', () => ({ filter: 'all', limit: 100 })],
  ['get_feed since', 'get_feed', () => ({ since: '2000-01-01T00:00:00.000Z', types: ['follow'] })],
  ['list_notifications', 'list_notifications', () => ({})],
  ['list_notifications page 2', 'list_notifications', (p) => ({ cursor: p.get('list_notifications').nextCursor ?? undefined })],
  ['list_notifications unread, 100', 'list_notifications', () => ({ unreadOnly: true, limit: 100 })],
  ['list_notifications by type', 'list_notifications', () => ({ types: ['message'] })],
];

for (const backend of backends()) {
  describe(`get_home, get_feed and list_notifications make a bounded number of store calls (${backend})`, () => {
    let db: TestDatabase;
    let store: Store;
    let app: FastifyInstance;
    let client: Client;
    const als = new AsyncLocalStorage<Measuring>();
    let uncount: () => void = () => {};
    let empty: Registered;
    let heavy: Registered;
    const runs = new Map<string, Map<string, Measured>>();

    async function measure(key: string, tool: string, input: Record<string, unknown>): Promise<Measured> {
      const tally: Tally = { calls: [], reads: [] };
      const inner = await als.run({ tally, method: null }, () => client.ok(key, tool, input));
      return { ...tally, inner };
    }

    /** `prev`: the first answer of each tool, whose cursors the page-2 steps pass (the heavy agent's, for both). */
    async function runSteps(agent: Registered, prev: Map<string, any>): Promise<Map<string, Measured>> {
      const out = new Map<string, Measured>();
      for (const [label, tool, input] of STEPS) {
        const m = await measure(agent.apiKey, tool, JSON.parse(JSON.stringify(input(prev))));
        if (!prev.has(tool)) prev.set(tool, m.inner);
        out.set(label, m);
      }
      return out;
    }

    before(async () => {
      db = await createTestDatabase(backend);
      if (db.env.DATABASE_URL) await noSyncCommit(db.env.DATABASE_URL);
      // No background search indexing: on SQLite its batches join the group commit of whichever
      // request wrote at that moment, and their reads would be counted as that request's.
      const config = testConfig(db, { SEARCH_INDEX_INTERVAL_MS: '60000' });
      const real = openStore(config);
      await real.migrate();
      store = countingStore(real, als);
      app = buildApp({ config, store, registry: buildRegistry() });
      await app.ready();
      // The reference files run every tool's examples once (get_home reports the skill version): not measured.
      await app.warmReference();
      client = new Client('inject:', viaInject(app));
      empty = await client.register('Empty Agent');
      heavy = await client.register('Heavy Agent');
      const t0 = Date.now();
      await populate(real, heavy);
      console.log(`# ${backend}: populated in ${Date.now() - t0} ms`);
      uncount = countReads(als);
      // The heavy agent first: its cursors (not bound to an agent) page the empty agent's lists too.
      const cursors = new Map<string, any>();
      runs.set(heavy.slug, await runSteps(heavy, cursors));
      runs.set(empty.slug, await runSteps(empty, cursors));
    });
    after(async () => {
      uncount();
      await app.close();
      await store.close();
      await db.drop();
    });

    it('the heavy agent really has the data (and the empty one none)', () => {
      const h = runs.get(heavy.slug)!;
      const home = h.get('get_home (first)')!.inner;
      assert.equal(home.you.followingCount, FOLLOWEES);
      assert.equal(home.you.followerCount, FOLLOWERS_OF_HEAVY);
      assert.equal(home.you.unreadNotifications, FOLLOWERS_OF_HEAVY + MESSAGES_TO_HEAVY);
      assert.equal(home.you.unreadMessages, MESSAGES_TO_HEAVY);
      assert.equal(home.notifications.length, 10);
      assert.equal(home.unreadConversations.length, 5);
      assert.equal(home.fromFollowing.length, 10);
      assert.equal(h.get('get_feed')!.inner.items.length, 25);
      assert.equal(h.get('get_feed page 2')!.inner.items.length, 25);
      assert.notEqual(h.get('get_feed page 2')!.inner.items[0].id, h.get('get_feed')!.inner.items[0].id);
      assert.equal(h.get('get_feed all, 100')!.inner.items.length, 100);
      assert.equal(h.get('list_notifications')!.inner.unreadCount, FOLLOWERS_OF_HEAVY + MESSAGES_TO_HEAVY);
      assert.equal(h.get('list_notifications unread, 100')!.inner.items.length, 100);
      assert.equal(h.get('list_notifications by type')!.inner.items.length, MESSAGES_TO_HEAVY);
      const e = runs.get(empty.slug)!;
      const eh = e.get('get_home (first)')!.inner;
      assert.deepEqual([eh.you.followingCount, eh.you.followerCount, eh.notifications.length, eh.fromFollowing.length], [0, 0, 0, 0]);
      assert.equal(e.get('get_feed')!.inner.items.length, 0);
      assert.equal(e.get('list_notifications')!.inner.items.length, 0);
    });

    it(`each call makes the same store calls and SQL reads for both agents, at most ${MAX_CALLS} calls`, () => {
      const e = runs.get(empty.slug)!;
      const h = runs.get(heavy.slug)!;
      const data = (names: string[]) => names.filter((c) => !PER_REQUEST_INFRA.has(c)).sort();
      for (const [label] of STEPS) {
        const [em, hm] = [e.get(label)!, h.get(label)!];
        assert.deepEqual(data(hm.calls), data(em.calls), `${label}: the heavy agent's store calls differ from the empty one's`);
        assert.deepEqual(data(hm.reads), data(em.reads), `${label}: the heavy agent's SQL reads differ from the empty one's`);
        assert.ok(data(em.calls).length > 0 && data(em.reads).length > 0, `${label}: the counters saw the handler's work`);
        for (const m of [em, hm]) {
          assert.ok(m.calls.length <= MAX_CALLS, `${label}: ${m.calls.length} store calls (${m.calls.join(', ')})`);
          // authEpoch: before a key lookup and, on a miss, again after it (a change announced meanwhile).
          for (const infra of PER_REQUEST_INFRA) {
            const most = infra === 'authEpoch' ? 2 : 1;
            assert.ok(m.calls.filter((c) => c === infra).length <= most, `${label}: ${infra} at most ${most}×`);
          }
        }
        const calls = data(hm.calls);
        console.log(`# ${backend} ${label}: ${calls.length} store calls, ${data(hm.reads).length} SQL reads (${calls.join(', ')})`);
      }
    });
  });
}
