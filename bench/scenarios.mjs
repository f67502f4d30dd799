// Benchmark scenarios. To add one (e.g. `edit`, `bash`), append an entry:
//   name     – label used in tables, --only and targets
//   tool     – tool name for POST /api/tools/{tool}; null = the bare baseline
//   setup    – async (ctx) => void, runs once against a fresh server before
//              warm-up; ctx.call(tool, body) invokes a tool and throws on error (returns the
//              inner result); ctx.register(name) makes another agent ({apiKey, slug}),
//              ctx.callAs(key, tool, body) calls as it
//   bodyFor  – (i, phase, k) => request body object; i is unique per request within a
//              load-generator run (warm-up included); k counts within the phase
//   path, headers – optional: another URL path than /api/tools/{tool}, extra headers (MCP)
//   optIn    – true: a long setup; runs only when named in --only
//   setupSeconds – extra seconds the run may take for a long setup (default 0)
// The bare scenario is always run (it is the baseline for the ratios).

export const FILE_1K = 1024;

// 1 KB of printable filler; written content is `${i}:` + filler, cut to 1 KB,
// so every write carries different content (a new version) of the same size.
const filler = 'abcdefghijklmnopqrstuvwxyz0123456789\n'.repeat(Math.ceil(FILE_1K / 37)).slice(0, FILE_1K);
export const content1k = (i) => (`${i}:` + filler).slice(0, FILE_1K);

const READ_PATH = '/bench/read-1k.txt';
const EDIT_FILES = 500;
const editFile = () => filler.slice(0, FILE_1K - 8) + '@@END@@\n';
const WRITE_FILES = 4; // rotate among a few paths so no single file's history dominates
/** Where the shared scenarios' setup put the mount paths (setup and bodyFor run in the load generator). */
const mounted = { read: '', edit: '' };

export const scenarios = [
  {
    name: 'bare',
    tool: null,
    setup: async () => {},
    // Same request shape as `read`, so the baseline pays the same parsing cost.
    bodyFor: () => ({ path: READ_PATH }),
  },
  {
    // An authenticated tool call that does no work of its own (the `noop`): the pipeline's cost.
    name: 'noop',
    tool: 'get_key_info',
    setup: async () => {},
    bodyFor: () => ({}),
  },
  {
    name: 'read',
    tool: 'read',
    setup: async (ctx) => {
      await ctx.call('write', { path: READ_PATH, content: content1k(0) });
    },
    bodyFor: () => ({ path: READ_PATH }),
  },
  {
    name: 'write',
    tool: 'write',
    setup: async () => {},
    bodyFor: (i) => ({ path: `/bench/write-${i % WRITE_FILES}.txt`, content: content1k(i) }),
  },
  {
    // One-line edit of a ~1 KB file, a new version each time: each edit inserts one line before
    // an end marker, so every request matches whatever happened before it (a chain of exact
    // revisions broke whenever the load generator dropped a request). Files grow ~8 B per edit.
    name: 'edit',
    tool: 'edit',
    setup: async (ctx) => {
      for (let j = 0; j < EDIT_FILES; j++) await ctx.call('write', { path: `/bench/edit-${j}.txt`, content: editFile(0) });
    },
    bodyFor: (i) => ({ path: `/bench/edit-${i % EDIT_FILES}.txt`, old_string: '@@END@@', new_string: `${i}\n@@END@@` }),
  },
  {
    // read through /shared: another agent (the owner) wrote the file and shared its directory with
    // the driving agent; same file and size as `read`, so the CPU per call compares directly.
    name: 'read-shared',
    tool: 'read',
    setup: async (ctx) => {
      const owner = await ctx.register('bench owner');
      const me = (await ctx.call('get_my_profile', {})).profile.slug;
      await ctx.callAs(owner.apiKey, 'write', { path: READ_PATH, content: content1k(0) });
      await ctx.callAs(owner.apiKey, 'share', { path: '/bench', with: me, permission: 'read' });
      mounted.read = `/shared/${owner.slug}${READ_PATH}`;
    },
    bodyFor: () => ({ path: mounted.read }),
  },
  {
    // edit through /shared (a write share): the versions land in the owner's history.
    name: 'edit-shared',
    tool: 'edit',
    setup: async (ctx) => {
      const owner = await ctx.register('bench owner');
      const me = (await ctx.call('get_my_profile', {})).profile.slug;
      for (let j = 0; j < EDIT_FILES; j++) await ctx.callAs(owner.apiKey, 'write', { path: `/bench/edit-${j}.txt`, content: editFile(0) });
      await ctx.callAs(owner.apiKey, 'share', { path: '/bench', with: me, permission: 'write' });
      mounted.edit = `/shared/${owner.slug}/bench`;
    },
    bodyFor: (i) => ({ path: `${mounted.edit}/edit-${i % EDIT_FILES}.txt`, old_string: '@@END@@', new_string: `${i}\n@@END@@` }),
  },
  {
    // The same read as `read`, as an MCP tools/call on POST /mcp (≤ 1.3× the REST read).
    name: 'mcp-read',
    tool: 'read',
    path: '/mcp',
    headers: { accept: 'application/json, text/event-stream' },
    setup: async (ctx) => {
      await ctx.call('write', { path: READ_PATH, content: content1k(0) });
    },
    bodyFor: (i) => ({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'read', arguments: { path: READ_PATH } } }),
  },
  {
    // list of a directory of 1,000 files (its cost per entry, not per history).
    name: 'list-1000',
    tool: 'list',
    setup: async (ctx) => {
      const one = (j) => ctx.call('write', { path: `/bench/dir/f-${String(j).padStart(4, '0')}.txt`, content: `${j}\n` });
      for (let j = 0; j < 1000; j += 50) await Promise.all(Array.from({ length: 50 }, (_, k) => one(j + k)));
    },
    bodyFor: () => ({ path: '/bench/dir', limit: 1000 }),
  },
  {
    // read of a 1 KB file with 100,000 versions (≤ 1.1× `read` of a file with one).
    // Setup writes it 100,000 times (~1 min on SQLite): run it with --only.
    name: 'read-100k-versions',
    tool: 'read',
    optIn: true,
    // Up to ~10 min of setup on PostgreSQL: the run's timeout allows for it.
    setupSeconds: 1200,
    setup: async (ctx) => {
      const one = (j) => ctx.call('write', { path: '/bench/hot.txt', content: content1k(j) });
      // 16 in flight: the server queues writes to one path (each is still its own version).
      for (let j = 0; j < 100_000; j += 16) await Promise.all(Array.from({ length: 16 }, (_, k) => one(j + k)));
    },
    bodyFor: () => ({ path: '/bench/hot.txt' }),
  },
  {
    // Per-call overhead of the bash tool (worker thread, filesystem adapter) for a trivial read.
    name: 'bash-cat',
    tool: 'bash',
    setup: async (ctx) => {
      await ctx.call('write', { path: '/one.txt', content: content1k(0) });
    },
    bodyFor: () => ({ command: 'cat /one.txt' }),
  },
  {
    // The same read through a worker and the interpreter (a pipe never takes bash's cat fast path):
    // the per-call cost of the just-bash adapter (its reset, its run).
    name: 'bash-pipe',
    tool: 'bash',
    optIn: true,
    setup: async (ctx) => {
      await ctx.call('write', { path: '/one.txt', content: content1k(0) });
    },
    bodyFor: () => ({ command: 'cat /one.txt | wc -l' }),
  },
];

// The targets: CPU per call as a multiple of bare's in the same run (on PostgreSQL the
// server's CPU plus its backends'), the figure that holds across machines.
export const CPU_TARGETS = {
  sqlite: { noop: 1.4, read: 1.6, write: 3.0, edit: 3.5, 'bash-cat': 2.0 },
  postgres: { noop: 1.6, read: 2.5, write: 5, edit: 6, 'bash-cat': 2.5 },
};
// Scenarios measured against another scenario of the same run: at most `max` × its CPU per call.
export const RELATIVE_TARGETS = {
  'mcp-read': { of: 'read', max: 1.3 },
  'read-100k-versions': { of: 'read', max: 1.1 },
  'read-shared': { of: 'read', max: 1.15 },
  'edit-shared': { of: 'edit', max: 1.15 },
};
// p99 under this and zero errors for every scenario named here (read, write and edit).
export const P99_TARGET_MS = 20;
export const P99_SCENARIOS = new Set(['read', 'write', 'edit', 'noop']);
