/**
 * The following feed's query (src/store/events.ts) pages exactly like its definition: the
 * viewer's followees' events of the asked verbs, since a time, none about an agent the viewer
 * blocked nor about the viewer itself, newest first. The query narrows the search to the `limit` followees with the newest
 * events first (so it costs O(followees), not O(log)); this checks it against that definition, a
 * model kept beside a random history written through the store (follows, unfollows, blocks,
 * messages), for page sizes below, at and above the number of followees, on both backends.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { newId } from '../src/core/keys.js';
import { openStore } from '../src/store/open.js';
import type { Store } from '../src/store/types.js';
import { backends, createTestDatabase, testConfig, type TestDatabase } from './helpers/backends.js';
import { createTestAgent } from './helpers/store-fixtures.js';

const AGENTS = 24;
/** Actions of the random history: 250 in npm test; FEED_QUERY_ACTIONS runs it deeper. */
const ACTIONS = Number(process.env.FEED_QUERY_ACTIONS ?? 250);
const VIEWER = 'agt_v00';

interface Logged {
  id: string;
  actorId: string;
  verb: string;
  subjectId: string;
  atMs: number;
}

/** A deterministic history (mulberry32), written through the store; returns the model of what it did. */
async function writeHistory(store: Store) {
  let seed = 7;
  const rand = () => {
    seed = (seed + 0x6d2b79f5) >>> 0;
    let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const ids = [VIEWER, ...Array.from({ length: AGENTS - 1 }, (_, i) => `agt_a${String(i + 1).padStart(2, '0')}`)];
  for (const id of ids) await createTestAgent(store, id);
  const log: Logged[] = [];
  const follows = new Set<string>();
  const blocks = new Set<string>();
  const messaged = new Set<string>();
  const t0 = Date.now() - ACTIONS * 1000;
  for (let i = 0; i < ACTIONS; i++) {
    const atMs = t0 + i * 1000;
    // The viewer acts too (follows most, blocks a few), so its followees change along the way.
    const from = rand() < 0.15 ? VIEWER : ids[1 + Math.floor(rand() * (AGENTS - 1))]!;
    const to = ids[Math.floor(rand() * AGENTS)]!;
    if (from === to) continue;
    const r = rand();
    const event = { id: newId('evt'), actorId: from, objectType: 'agent', objectId: to, subjectId: to, createdAtMs: atMs };
    if (r < 0.6) {
      const outcome = await store.follow(
        from,
        to,
        { ...event, verb: 'follow', payload: {} },
        { recipientId: to, type: 'follow', notificationId: newId('ntf') },
        1_000_000,
      );
      if (outcome === 'followed') {
        follows.add(`${from}>${to}`);
        log.push({ id: event.id, actorId: from, verb: 'follow', subjectId: to, atMs });
      }
    } else if (r < 0.75) {
      await store.unfollow(from, to);
      follows.delete(`${from}>${to}`);
    } else if (r < 0.8 && from === VIEWER) {
      await store.block(from, to, atMs);
      blocks.add(to);
      follows.delete(`${from}>${to}`);
      follows.delete(`${to}>${from}`);
    } else {
      // A message: private, never in a feed; its event is written for the first unread one only.
      const body = `message ${i}`;
      const sent = await store.sendMessage({
        ...{ fromId: from, toId: to, messageId: newId('msg'), newConversationId: newId('cnv'), body, attachments: [], atMs },
        ...{ bodyHash: createHash('sha256').update(body).digest('hex'), duplicateSinceMs: atMs - 86_400_000 },
        event: { ...event, verb: 'message', objectType: 'conversation', payload: { preview: body } },
        notify: { recipientId: to, type: 'message', notificationId: newId('ntf') },
      });
      if (sent.kind === 'sent' && !messaged.has(`${from}>${to}`)) log.push({ id: event.id, actorId: from, verb: 'message', subjectId: to, atMs });
      if (sent.kind === 'sent') messaged.add(`${from}>${to}`);
    }
  }
  return { log, follows, blocks };
}

for (const backend of backends()) {
  describe(`the following feed's query (${backend})`, () => {
    let db: TestDatabase;
    let store: Store;
    let model: Awaited<ReturnType<typeof writeHistory>>;

    before(async () => {
      db = await createTestDatabase(backend);
      store = openStore(testConfig(db));
      await store.migrate();
      model = await writeHistory(store);
    });
    after(async () => {
      await store.close();
      await db.drop();
    });

    it('every page, for limits 1 to 30, is the next slice of the definition (verbs, since, blocks)', async () => {
      const followees = [...model.follows].filter((f) => f.startsWith(`${VIEWER}>`)).length;
      assert.ok(followees >= 5 && followees < 30, `the viewer follows ${followees}: some page sizes are below, some above`);
      const mid = model.log[Math.floor(model.log.length / 2)]!.atMs;
      for (const verbs of [['follow'], ['follow', 'message'], ['message']]) {
        for (const sinceMs of [0, mid]) {
          const expected = model.log
            .filter((e) => verbs.includes(e.verb) && e.atMs >= sinceMs && model.follows.has(`${VIEWER}>${e.actorId}`))
            .filter((e) => !model.blocks.has(e.actorId) && !model.blocks.has(e.subjectId) && e.subjectId !== VIEWER)
            .map((e) => e.id)
            .reverse();
          if (verbs[0] === 'follow' && sinceMs === 0) assert.ok(expected.length > 40, `${expected.length} items: several pages`);
          for (const limit of [1, 2, 3, 5, followees - 1, followees, followees + 1, 30]) {
            const seen: string[] = [];
            for (let beforeSeq: number | null = null; ;) {
              const page = await store.feed({ viewerId: VIEWER, filter: 'following', verbs, sinceMs, beforeSeq, limit });
              const at = `verbs ${verbs}, since ${sinceMs}, limit ${limit}, after ${seen.length}`;
              assert.deepEqual(
                page.map((e) => e.id),
                expected.slice(seen.length, seen.length + limit),
                at,
              );
              seen.push(...page.map((e) => e.id));
              if (page.length < limit) break;
              beforeSeq = page[page.length - 1]!.seq;
            }
            assert.equal(seen.length, expected.length);
          }
        }
      }
    });
  });
}
