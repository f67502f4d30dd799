/** The bash tool: GNU-style exploration (and, with the scopes, changes) over the caller's tree. */
import { z } from 'zod';
import { BASH_COMMANDS } from '../sandbox/commands.js';
import { tryFastCat } from '../sandbox/fast.js';
import { ToolError, TransportError } from '../core/errors.js';
import { iso } from '../core/time.js';
import { ENTRY_PAGE } from './big-trees.js';
import { ROOT, isLive, navigablePath } from './common.js';
import { defineTool, markPath, type AnyTool, type ToolContext } from './registry.js';
import { recordBashCopies } from './bash-copies.js';
import { commitMounted } from './bash-mounts.js';
import { MountedFs } from '../sandbox/mounted-fs.js';
import type { FsAccess } from '../sandbox/fs.js';
import type { BashOutcome } from '../sandbox/commands.js';
import { parseMount } from '../core/mounts.js';
import { StoreConflict } from '../store/types.js';
import { changeOp, changesetId, mutationOutputOf, timestamp, version } from './output-shapes.js';

const bashOutput = mutationOutputOf({
  stdout: z.string(),
  stderr: z.string(),
  exitCode: z.number().int().describe('0 success; grep: 1 no match; 124 timeout; 126 a command limit.'),
  truncated: z.boolean().describe('Output beyond the limit was dropped.'),
  changesetId: changesetId.nullable().describe('The changeset of the files this command changed (null: none).'),
  changedPaths: z.array(z.strictObject({ path: z.string(), op: changeOp, version, updatedAt: timestamp })).describe('The first 100 paths changed.'),
  changedCount: z.number().int().optional().describe('When more than 100 changed: all of them.'),
  changedTruncated: z.literal(true).optional(),
  changesets: z
    .array(
      z.strictObject({
        changesetId: changesetId,
        owner: z.string().nullable().describe('null: your tree; else the slug whose tree changed through /shared.'),
      }),
    )
    .optional()
    .describe('When the command changed files in a share: one changeset per tree it changed (yours first).'),
});

const bash = defineTool({
  name: 'bash',
  family: 'bash',
  scopes: ['files:read'],
  summary: 'Run Unix commands (ls, find, grep, cat, head, sed, awk, jq, …) against your files; pipes and redirections work.',
  note: 'Changes need files:write; one call is one changeset. grep exit 1: no match.',
  description:
    'Runs a shell command line over your filesystem (your tree, minus what the key cannot see). Behaves like GNU tools: ' +
    '`grep -rn pattern /dir`, `find / -name "*.md"`, `ls -la`, `head -n 20 f`, `wc -l`, pipes (`|`), `;`, `&&`, `||`, ' +
    'redirections (`>`, `>>`, `2>`, `2>&1`, `/dev/null`). grep exits 1 when nothing matches: that is not an error. ' +
    'Commands that change files (mkdir, touch, cp, mv, rm, tee, sed -i, > file) need files:write (and files:delete for ' +
    'rm/mv); without them they fail with "Permission denied (this key lacks files:write)". All changes of one call become one ' +
    'changeset. Limits: wall time (exit 124, TIMEOUT), output size (truncated), and a few commands of an agent at once (more: 429 ' +
    'RATE_LIMITED with details.limit "bash_concurrency", get_key_info with includeLimits: true: limits.bashConcurrent), and worker time a minute (past ' +
    'it 429 RATE_LIMITED with details.limit "bash_worker_time" and Retry-After; limits.bashWorkerMsPerMinute). Files have no permission bits ' +
    '(chmod fails) and no links (no ln); which finds commands in /usr/bin. Other commands answer "command not found" (exit 127). ' +
    `Commands: ${BASH_COMMANDS.join(', ')}, cd, test/[.`,
  input: z.strictObject({
    // The shell parser is superlinear on some inputs (98k chars of '{"' take ~8 s of a shared worker);
    // 16k chars bound that to ~0.25 s. Longer scripts belong in a file.
    command: z.string().min(1).max(16_000).describe('The command line (at most 16,000 characters), e.g. "grep -rn TODO /src | head -20".'),
    cwd: markPath(z.string().default('/').describe('Working directory (default /).')),
  }),
  output: bashOutput,
  mutating: true,
  queueByPath: false,
  annotations: { readOnly: false, destructive: true, idempotent: false },
  errors: ['TIMEOUT', 'INVALID_INPUT'],
  examples: [
    { title: 'Search every file', input: { command: 'grep -rn "ship" /' } },
    { title: 'Find markdown files, count lines', input: { command: "find / -name '*.md' | xargs wc -l" } },
  ],
  async handler(input, ctx) {
    const cwd = navigablePath(ctx, input.cwd);
    const { scopes, agentId, folder } = ctx.auth;
    const access = { agentId, folder, canWrite: scopes.includes('files:write'), canDelete: scopes.includes('files:delete'), viewer: { agentId } };
    if (cwd !== ROOT && !(await isDirectory(ctx, access, cwd))) {
      throw new ToolError('INVALID_INPUT', `cwd ${cwd} is not an existing directory. Use / or a directory that exists.`, { field: 'cwd' });
    }
    const fast = await tryFastCat(ctx.store, access, input.command, cwd, ctx.config.bashMaxOutputBytes);
    if (fast) return { success: true, ...fast, truncated: false, changesetId: null, changedPaths: [] };
    checkWorkerTime(ctx);
    takeSlot(ctx);
    const outcome = await runCommand(ctx, input.command, cwd, access);
    return saveChanges(ctx, outcome);
  },
});

/** 429 when the agent's commands held workers for BASH_WORKER_MS_PER_MINUTE in the last minute (README, BASH_WORKER_MS_PER_MINUTE). */
function checkWorkerTime(ctx: ToolContext): void {
  const budgetMs = ctx.config.bashWorkerMsPerMinute;
  const over = budgetMs > 0 ? ctx.bash.overBudget(ctx.auth.agentId, budgetMs) : null;
  if (!over) return;
  const { usedMs, retryAfterSeconds } = over;
  throw new TransportError(
    'RATE_LIMITED',
    `This agent's bash commands held workers for ${(usedMs / 1000).toFixed(1)} s in the last minute, the most allowed (BASH_WORKER_MS_PER_MINUTE = ${budgetMs}; ` +
      `get_key_info with includeLimits: true: limits.bashWorkerMsPerMinute). Retry in ${retryAfterSeconds} s; meanwhile read, list and search work. Narrow long commands (a path, -maxdepth, head).`,
    {
      details: { limit: 'bash_worker_time', budgetMs, usedMs, retryAfterSeconds },
      headers: { 'retry-after': String(retryAfterSeconds) },
    },
  );
}

/** A place among the agent's bash commands running at once (runCommand frees it), or 429 when all are taken. */
function takeSlot(ctx: ToolContext): void {
  const max = ctx.config.bashMaxConcurrentPerAgent;
  const slot = ctx.bashSlots.take(ctx.auth.agentId, max);
  if (!slot.taken) {
    const { running } = slot;
    // Its own fields and headers: the request budget (X-RateLimit-*) is not what ran out.
    throw new TransportError(
      'RATE_LIMITED',
      `${running} bash commands of this agent are already running, the most that may run at once (BASH_MAX_CONCURRENT_PER_AGENT = ${max}; ` +
        'get_key_info with includeLimits: true: limits.bashConcurrent). This is not the request budget (X-RateLimit-Remaining counts that). Wait for one to finish, then retry in 1 s.',
      {
        details: { limit: 'bash_concurrency', max, running, retryAfterSeconds: 1 },
        headers: { 'retry-after': '1', 'x-bash-concurrency-limit': String(max), 'x-bash-concurrency-running': String(running) },
      },
    );
  }
}

/** Runs the command on a worker, then frees the slot; TIMEOUT (nothing written) when it ran out of time. */
async function runCommand(ctx: ToolContext, command: string, cwd: string, access: FsAccess): Promise<BashOutcome> {
  const outcome = await ctx.bash
    .run({
      command,
      cwd,
      access,
      timeoutMs: ctx.config.bashTimeoutMs,
      maxOutputBytes: ctx.config.bashMaxOutputBytes,
      maxCommands: ctx.config.bashMaxCommands,
    })
    .finally(() => ctx.bashSlots.release(ctx.auth.agentId));
  if (outcome.error) throw new Error(outcome.error);
  if (outcome.timedOut) {
    throw new ToolError(
      'TIMEOUT',
      `The command ran longer than ${ctx.config.bashTimeoutMs} ms and was stopped (exit 124); nothing was written. Narrow it (a path, -maxdepth, a literal pattern) and retry.`,
      {
        exitCode: 124,
        limitMs: ctx.config.bashTimeoutMs,
        stdout: outcome.stdout,
        stderr: outcome.stderr,
      },
    );
  }
  return outcome;
}

/**
 * The result, with the command's changes saved: other agents' trees first (one changeset each),
 * then the caller's, whose commit stores the result. A file over the size limit saves nothing.
 */
async function saveChanges(ctx: ToolContext, outcome: BashOutcome) {
  let stderr = outcome.stderr;
  let exitCode = outcome.exitCode;
  // The result is built inside the commit: with an idempotencyKey it is what gets stored for a
  // replay (storing the changeset record itself made a replay answer that instead).
  const respond = (changeset: { id: string; entries: Array<{ path: string; op: string; toVersion: number; updatedAtMs: number }> } | null) => ({
    success: true,
    stdout: outcome.stdout,
    stderr,
    exitCode,
    truncated: outcome.truncated,
    changesetId: changeset?.id ?? null,
    // At most ENTRY_PAGE entries (a `cp -r` of a big tree changes thousands); list_changes pages the rest.
    changedPaths: changeset
      ? changeset.entries.slice(0, ENTRY_PAGE).map((e) => ({ path: e.path, op: e.op, version: e.toVersion, updatedAt: iso(e.updatedAtMs) }))
      : [],
    ...(changeset && changeset.entries.length > ENTRY_PAGE ? { changedCount: changeset.entries.length, changedTruncated: true } : {}),
  });
  const all = [...outcome.changes, ...(outcome.mounted ?? []).flatMap((m) => m.changes)];
  const tooBig = all.find((c) => c.state.kind === 'file' && c.state.blob.size > ctx.config.maxFileBytes);
  if (tooBig) {
    stderr += `bash: ${tooBig.path}: File too large (limit ${ctx.config.maxFileBytes} bytes); no change of this command was saved\n`;
    return { ...respond(null), stderr, exitCode: exitCode || 1 };
  }
  // Other agents' trees first (one changeset each), then the caller's, whose commit stores the result.
  const shared = await commitMounted(ctx, outcome.mounted ?? []);
  stderr += shared.stderr;
  if (shared.stderr) exitCode = exitCode || 1;
  const withShared = (own: Parameters<typeof respond>[0]) => {
    const r = respond(own);
    if (!shared.done.length) return r;
    const changed = [...r.changedPaths, ...shared.done.flatMap((d) => d.changed)];
    return {
      ...r,
      changedPaths: changed.slice(0, ENTRY_PAGE),
      ...(changed.length > ENTRY_PAGE ? { changedCount: changed.length, changedTruncated: true as const } : {}),
      changesets: [
        ...(own ? [{ changesetId: own.id, owner: null }] : []),
        ...shared.done.map((d) => ({ changesetId: d.changesetId, owner: d.owner })),
      ],
    };
  };
  if (outcome.changes.length) {
    try {
      let own: Parameters<typeof respond>[0] = null;
      const answer = await ctx.commit(outcome.changes, (cs) => withShared((own = cs)));
      if (own) await recordBashCopies(ctx, outcome.copied ?? [], outcome.changes, own);
      return answer;
    } catch (err) {
      // Once another tree saved its part, a conflict here is not retried (a rerun would repeat that part).
      if (err instanceof StoreConflict && shared.done.length) {
        stderr += 'bash: your files changed while the command ran; no change of this command in your tree was saved (run it again)\n';
        exitCode = exitCode || 1;
        return withShared(null);
      }
      if (!(err instanceof ToolError) || err.code !== 'QUOTA_EXCEEDED') throw err;
      stderr += `bash: No space left on device: ${err.message} No change of this command in your tree was saved.\n`;
      exitCode = exitCode || 1;
    }
  }
  return withShared(null);
}

/** Whether cwd is a directory the command can start in: of the caller's tree or of a mount. */
async function isDirectory(ctx: ToolContext, access: FsAccess, cwd: string): Promise<boolean> {
  if (!parseMount(cwd)) {
    const node = await ctx.store.getNode(ctx.auth.agentId, cwd);
    return isLive(node) && node.kind === 'dir';
  }
  const fs = new MountedFs(ctx.store, access);
  try {
    return (await fs.stat(cwd)).isDirectory;
  } catch {
    return false;
  } finally {
    fs.end();
  }
}

export const bashTools: AnyTool[] = [bash];
