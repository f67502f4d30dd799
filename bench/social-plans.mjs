// The plans behind bench/social.mjs's calls: the exact SQL and parameters the store sends for
// each view (captured by a Db that records instead of running), explained on the seeded database
// (SQLite: EXPLAIN QUERY PLAN; PostgreSQL: EXPLAIN ANALYZE of a prepared statement past its 5
// custom plans, as the server's named statements run) and timed alone, then condensed to a line.
import Database from 'better-sqlite3';
import pg from 'pg';
import { eventStore } from '../dist/src/store/events.js';
import { messageStore } from '../dist/src/store/messages.js';
import { FEED_KINDS } from '../dist/src/tools/event-views.js';

export const ms3 = (ms) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(1));
const p50 = (ms) => [...ms].sort((a, b) => a - b)[Math.floor(ms.length / 2)];
/** The exact SQL and parameters the store runs for each view, captured by a Db that records instead of running. */
export async function capturedQueries(viewerId, heavyId, seqs) {
  const calls = [];
  const recorder = { all: async (q, p) => (calls.push({ q, p }), []), get: async (q, p) => (calls.push({ q, p }), undefined) };
  const events = eventStore(recorder);
  const messages = messageStore(recorder);
  const feed = (limit, beforeSeq) => events.feed({ viewerId, filter: 'following', verbs: FEED_KINDS, sinceMs: 0, beforeSeq, limit });
  const notes = (unreadOnly, limit) => events.listNotifications({ recipientId: viewerId, unreadOnly, types: [], sinceMs: 0, beforeSeq: null, limit });
  const views = [
    ['feed, following, page 1 (get_feed {})', () => feed(26, null)],
    ['feed, following, page 2 (cursor)', () => feed(26, seqs.page2)],
    ['feed, following, 10 (get_home)', () => feed(10, null)],
    [
      'feed, following 9,999 (heavy: get_feed {})',
      () => events.feed({ viewerId: heavyId, filter: 'following', verbs: FEED_KINDS, sinceMs: 0, beforeSeq: null, limit: 26 }),
    ],
    ['feed, all (get_feed {filter: all})', () => events.feed({ viewerId, filter: 'all', verbs: FEED_KINDS, sinceMs: 0, beforeSeq: null, limit: 26 })],
    ['notifications (list_notifications {})', () => notes(false, 26)],
    ['notifications, unread (list_notifications {unreadOnly})', () => notes(true, 26)],
    ['unread conversations (get_home)', () => messages.unreadConversations(viewerId, 5)],
    ['newest seq (get_home)', () => events.latestEventSeq()],
    ['new notifications since a day (get_home)', () => events.countNotificationsAfter(viewerId, seqs.dayAgo, seqs.max, 100)],
    ['new from following since a day (get_home)', () => events.countFollowingAfter(viewerId, seqs.dayAgo, seqs.max, FEED_KINDS, 100)],
    ['new followers since a day (get_home)', () => events.countNewFollowers(viewerId, seqs.dayAgo, seqs.max, 100)],
  ];
  const out = [];
  for (const [name, run] of views) {
    calls.length = 0;
    await run();
    out.push({ name, ...calls[0] });
  }
  return out;
}

const timeIt = async (run, n = 20) => {
  const ms = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await run();
    ms.push(performance.now() - t);
  }
  return p50(ms.slice(5)); // PostgreSQL: past its 5 custom plans, what the server's prepared statement settles on
};

/** SQLite: EXPLAIN QUERY PLAN, and the query alone on its own connection. */
export async function sqlitePlans(file, queries) {
  const db = new Database(file, { readonly: true });
  const plans = [];
  for (const { name, q, p } of queries) {
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN ${q.sqlite}`)
      .all(...p)
      .map((r) => r.detail);
    const stmt = db.prepare(q.sqlite).raw();
    const ms = await timeIt(() => stmt.all(...p));
    plans.push({ name, ms, short: condenseSqlite(plan), full: plan.join('\n') });
  }
  db.close();
  return plans;
}

/** An EXPLAIN ANALYZE in one line: its scans in plan order, each with its actual rows (× loops); ↓ backward, (io) index only. */
const condensePg = (lines) =>
  lines
    .map((l) => {
      const scan = l.match(/(Index Only Scan|Index Scan|Seq Scan|Bitmap Heap Scan)( Backward)? (?:using (\S+) )?on (\S+)/);
      const m = l.match(/actual time=[\d.]+\.\.[\d.]+ rows=(\d+) loops=(\d+)/);
      if (!scan || !m) return null;
      const what = scan[3] ?? `${scan[1].toLowerCase()} ${scan[4]}`;
      return `${what}${scan[2] ? ' ↓' : ''}${scan[1] === 'Index Only Scan' ? ' (io)' : ''} [${m[1]}${m[2] === '1' ? '' : `×${m[2]}`}]`;
    })
    .filter(Boolean)
    .join(' · ');

/** EXPLAIN QUERY PLAN in one line: its searches and scans (index and range), sorts; repeated steps once. */
const condenseSqlite = (details) =>
  [
    ...new Set(
      details
        .filter((d) => /^(SEARCH|SCAN|USE TEMP)/.test(d))
        .map((d) =>
          d
            .replace(/^USE TEMP B-TREE FOR (ORDER BY|DISTINCT)$/, (_, why) => (why === 'DISTINCT' ? 'distinct' : 'sort'))
            .replace(/^(SEARCH|SCAN) (\S+)( EXISTS)? USING INTEGER PRIMARY KEY \((.*)\)$/, '$2 by $4')
            .replace(/^(SEARCH|SCAN) (\S+)( EXISTS)? USING COVERING INDEX (\S+)/, '$4 (covering)')
            .replace(/^(SEARCH|SCAN) (\S+)( EXISTS)? USING INDEX (\S+)/, '$4')
            .replace(/^SEARCH (\S+)$/, '$1 (max of its rowid)'),
        ),
    ),
  ].join(' · ');

/** PostgreSQL: a SQL-level PREPARE run 6 times (as the server's named statements are), then EXPLAIN ANALYZE EXECUTE. */
export async function postgresPlans(url, queries) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const plans = [];
  let i = 0;
  for (const { name, q, p } of queries) {
    const args = p.length ? `(${p.map((v) => (typeof v === 'number' ? String(v) : c.escapeLiteral(String(v)))).join(', ')})` : '';
    const stmt = `bench_q${i++}`;
    await c.query(`PREPARE ${stmt} AS ${q.postgres}`);
    const ms = await timeIt(() => c.query(`EXECUTE ${stmt}${args}`));
    const lines = (await c.query(`EXPLAIN (ANALYZE, BUFFERS) EXECUTE ${stmt}${args}`)).rows.map((r) => r['QUERY PLAN']);
    const exec = lines.find((l) => l.startsWith('Execution Time'));
    plans.push({ name, ms, short: `${condensePg(lines)} (${exec})`, full: lines.join('\n') });
  }
  await c.end();
  return plans;
}
