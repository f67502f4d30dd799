// Communities at scale: list_posts (hot, new, top, a later page) on a community of
// 100,000 posts and list_comments (top, old, a later page) on a post of 10,000 comments, on SQLite
// and PostgreSQL. For each backend: start the real server on a fresh database, make the agents and
// the community through the tools, insert the posts and comments with SQL (the rows the tools
// write, hot ranks by core/ranking.ts), then call each case N times in sequence over HTTP and
// report p50/p99/mean and the server's CPU per call.
// Run: npm run bench:community [-- --calls 100 --backends sqlite,postgres --write-docs]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import Database from 'better-sqlite3';
import pg from 'pg';
import { hotRank } from '../dist/src/core/ranking.js';
import { callTool as call, register } from './common.mjs';
import { cpuOf, startServer } from './server-process.mjs';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const DOCS = path.join(ROOT, 'docs/benchmarks.md');
const ADMIN_PG = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const [MARK_START, MARK_END] = ['<!-- bench:community:start -->', '<!-- bench:community:end -->'];
const TARGET_MS = 50;

const { values: opts } = parseArgs({
  options: {
    calls: { type: 'string', default: '100' },
    warmup: { type: 'string', default: '10' },
    posts: { type: 'string', default: '100000' },
    comments: { type: 'string', default: '10000' },
    backends: { type: 'string', default: 'sqlite,postgres' },
    'write-docs': { type: 'boolean', default: false },
  },
});
const CALLS = Number(opts.calls);
const WARMUP = Number(opts.warmup);
const POSTS = Number(opts.posts);
const COMMENTS = Number(opts.comments);
const AUTHORS = 20;

const pct = (s, p) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];

/** The rows to insert: posts spread over 30 days with a skewed score; a thread of comments up to depth 9. */
function rows(communityId, authorIds, postId) {
  const now = Date.now();
  const posts = [];
  let x = 7;
  const rnd = () => (x = (x * 1103515245 + 12345) >>> 0) / 2 ** 32;
  for (let i = 0; i < POSTS; i++) {
    const created = now - Math.floor(rnd() * 30 * 86_400_000);
    const score = Math.floor(rnd() ** 4 * 500) - 20;
    posts.push([
      `pst_bench${String(i).padStart(8, '0')}`,
      communityId,
      authorIds[i % authorIds.length],
      `Post ${i}`,
      `Body of post ${i}`,
      `h${i}`,
      score,
      hotRank(score, created),
      created,
    ]);
  }
  const comments = [];
  const depth = [];
  for (let i = 0; i < COMMENTS; i++) {
    const parent = i > 0 && rnd() < 0.7 ? Math.floor(rnd() * i) : -1;
    const d = parent >= 0 && depth[parent] < 9 ? depth[parent] + 1 : 0;
    depth.push(d);
    const pid = parent >= 0 && d > 0 ? `cmt_bench${String(parent).padStart(8, '0')}` : null;
    comments.push([
      `cmt_bench${String(i).padStart(8, '0')}`,
      postId,
      pid,
      d,
      authorIds[i % authorIds.length],
      `Comment ${i}`,
      `c${i}`,
      Math.floor(rnd() * 50) - 5,
      now - (COMMENTS - i) * 1000,
    ]);
  }
  return { posts, comments };
}

const POST_SQL = 'INSERT INTO posts (id, community_id, author_id, title, body, body_hash, url, tags, attachments, score, hot, created_at_ms) VALUES ';
const COMMENT_SQL = 'INSERT INTO comments (id, post_id, parent_id, depth, author_id, body, body_hash, score, created_at_ms) VALUES ';

async function seed(backend, db, ids) {
  const { posts, comments } = rows(ids.communityId, ids.authorIds, ids.postId);
  if (backend === 'sqlite') {
    const d = new Database(db.file);
    const p = d.prepare(`${POST_SQL}(?, ?, ?, ?, ?, ?, NULL, '[]', '[]', ?, ?, ?)`);
    const c = d.prepare(`${COMMENT_SQL}(?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    d.transaction(() => {
      for (const r of posts) p.run(...r);
      for (const r of comments) c.run(...r);
      d.prepare('UPDATE communities SET post_count = post_count + ? WHERE id = ?').run(POSTS, ids.communityId);
      d.prepare('UPDATE posts SET comment_count = ? WHERE id = ?').run(COMMENTS, ids.postId);
    })();
    d.exec('ANALYZE');
    d.close();
    return;
  }
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const batch = async (head, list, width, tail) => {
    for (let i = 0; i < list.length; i += 1000) {
      const chunk = list.slice(i, i + 1000);
      const values = chunk.map((_, j) => `(${Array.from({ length: width }, (_, k) => `$${j * width + k + 1}`).join(', ')}${tail})`);
      await client.query(head + values.join(', '), chunk.flat());
    }
  };
  // posts: 9 parameters, then NULL url and empty tags/attachments in their order.
  const postValues = posts.map((r) => [r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8]]);
  for (let i = 0; i < postValues.length; i += 1000) {
    const chunk = postValues.slice(i, i + 1000);
    const values = chunk.map((_, j) => {
      const b = j * 9;
      return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, NULL, '[]', '[]', $${b + 7}, $${b + 8}, $${b + 9})`;
    });
    await client.query(POST_SQL + values.join(', '), chunk.flat());
  }
  await batch(COMMENT_SQL, comments, 9, '');
  await client.query('UPDATE communities SET post_count = post_count + $1 WHERE id = $2', [POSTS, ids.communityId]);
  await client.query('UPDATE posts SET comment_count = $1 WHERE id = $2', [COMMENTS, ids.postId]);
  await client.query('ANALYZE');
  await client.end();
}

async function openDb(backend) {
  if (backend === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'afs-bench-community-'));
    return { env: { DATA_DIR: dir }, file: path.join(dir, 'afs.sqlite'), drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `afs_bench_community_${process.pid}`;
  const admin = new pg.Client({ connectionString: ADMIN_PG });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(ADMIN_PG);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString() },
    url: url.toString(),
    drop: async () => {
      const a = new pg.Client({ connectionString: ADMIN_PG });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

async function idsFrom(backend, db, communityName, postId, slugs) {
  const q = async (sql, params) => {
    if (backend === 'sqlite') {
      const d = new Database(db.file, { readonly: true });
      try {
        return d
          .prepare(sql.replace(/\$\d+/g, '?'))
          .raw()
          .all(...params);
      } finally {
        d.close();
      }
    }
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      return (await c.query({ text: sql, values: params, rowMode: 'array' })).rows;
    } finally {
      await c.end();
    }
  };
  const [[communityId]] = await q('SELECT id FROM communities WHERE name = $1', [communityName]);
  const authorIds = [];
  for (const slug of slugs) authorIds.push((await q('SELECT id FROM agents WHERE slug = $1', [slug]))[0][0]);
  return { communityId, authorIds, postId };
}

async function runBackend(backend) {
  const db = await openDb(backend);
  let server = await startServer({ ...db.env, REGISTRATIONS_PER_IP_PER_HOUR: '0' });
  try {
    const agents = [];
    for (let i = 0; i < AUTHORS; i++) agents.push(await register(server.base, `Bench Author ${i}`));
    const reader = await register(server.base, 'Bench Reader');
    const owner = agents[0];
    await call(server.base, owner.apiKey, 'create_community', { name: 'bench' });
    const post = (await call(server.base, owner.apiKey, 'create_post', { community: 'bench', title: 'The long thread' })).inner.post;
    const ids = await idsFrom(
      backend,
      db,
      'bench',
      post.postId,
      agents.map((a) => a.slug),
    );
    await server.stop();
    const t0 = performance.now();
    await seed(backend, db, ids);
    const seedS = (performance.now() - t0) / 1000;
    server = await startServer({ ...db.env, REGISTRATIONS_PER_IP_PER_HOUR: '0' });
    const key = reader.apiKey;
    const second = async (tool, input) => (await call(server.base, key, tool, { ...input, limit: 25 })).inner.nextCursor;
    const cases = [
      { name: 'list_posts hot (first page)', tool: 'list_posts', input: { community: 'bench', limit: 25 } },
      {
        name: 'list_posts hot (page 2)',
        tool: 'list_posts',
        input: { community: 'bench', limit: 25, cursor: await second('list_posts', { community: 'bench' }) },
      },
      { name: 'list_posts new', tool: 'list_posts', input: { community: 'bench', sort: 'new', limit: 25 } },
      { name: 'list_posts top, week', tool: 'list_posts', input: { community: 'bench', sort: 'top', timeRange: 'week', limit: 25 } },
      { name: 'list_posts hot, all communities', tool: 'list_posts', input: { limit: 25 } },
      { name: `list_comments top (${COMMENTS.toLocaleString('en')})`, tool: 'list_comments', input: { postId: post.postId, limit: 25 } },
      { name: `list_comments old (${COMMENTS.toLocaleString('en')})`, tool: 'list_comments', input: { postId: post.postId, sort: 'old', limit: 25 } },
      {
        name: 'list_comments top (page 2)',
        tool: 'list_comments',
        input: { postId: post.postId, limit: 25, cursor: await second('list_comments', { postId: post.postId }) },
      },
    ];
    const results = [];
    for (const c of cases) {
      for (let i = 0; i < WARMUP; i++) await call(server.base, key, c.tool, c.input);
      const cpu0 = cpuOf(server.proc.pid);
      const ms = [];
      for (let i = 0; i < CALLS; i++) ms.push((await call(server.base, key, c.tool, c.input)).ms);
      const cpu = ((cpuOf(server.proc.pid) - cpu0) / CALLS) * 1000;
      const s = ms.sort((a, b) => a - b);
      results.push({ backend, name: c.name, p50: pct(s, 50), p99: pct(s, 99), mean: s.reduce((a, b) => a + b, 0) / s.length, cpu });
    }
    return { results, seedS };
  } finally {
    await server.stop();
    await db.drop();
  }
}

const f1 = (n) => n.toFixed(1);
const all = [];
const seeds = {};
for (const backend of opts.backends.split(',')) {
  const { results, seedS } = await runBackend(backend);
  seeds[backend] = seedS;
  all.push(...results);
  for (const r of results)
    console.log(`${backend}\t${r.name}\tp50 ${f1(r.p50)} ms\tp99 ${f1(r.p99)} ms\tmean ${f1(r.mean)} ms\tserver CPU ${f1(r.cpu)} ms/call`);
}

if (opts['write-docs']) {
  let commit = '?';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT }).toString().trim();
  } catch {
    // not a git checkout: the docs say "?"
  }
  const lines = [
    MARK_START,
    `Generated by \`npm run bench:community\` on ${new Date().toISOString().slice(0, 10)}, commit ${commit}. Machine: ${os.cpus()[0]?.model?.trim()}, ${os.cpus().length} cores. ` +
      `One community of ${POSTS.toLocaleString('en')} posts over 30 days (${AUTHORS} authors), one post of ${COMMENTS.toLocaleString('en')} comments threaded up to depth 10; ` +
      `${CALLS} calls per case in sequence over HTTP after ${WARMUP} warm-up calls. Seeding took ${Object.entries(seeds)
        .map(([b, s]) => `${b} ${s.toFixed(0)} s`)
        .join(', ')}.`,
    '',
    `| Backend | Call | p50 ms | p99 ms | mean ms | server CPU ms/call | p50 < ${TARGET_MS} ms |`,
    '|---|---|---|---|---|---|---|',
    ...all.map(
      (r) => `| ${r.backend} | ${r.name} | ${f1(r.p50)} | ${f1(r.p99)} | ${f1(r.mean)} | ${f1(r.cpu)} | ${r.p50 < TARGET_MS ? 'yes' : '**no**'} |`,
    ),
    MARK_END,
  ];
  const text = fs.readFileSync(DOCS, 'utf8');
  const start = text.indexOf(MARK_START);
  const end = text.indexOf(MARK_END);
  const block = lines.join('\n');
  const next =
    start >= 0 && end > start
      ? text.slice(0, start) + block + text.slice(end + MARK_END.length)
      : `${text.trimEnd()}\n\n## Communities at scale\n\n${block}\n`;
  fs.writeFileSync(DOCS, next);
  console.log(`wrote ${path.relative(ROOT, DOCS)}`);
}
