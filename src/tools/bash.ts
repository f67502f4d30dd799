/** The bash tool: GNU-style exploration (and, with the scopes, changes) over the caller's tree. */
import { z } from 'zod';
import { BASH_COMMANDS } from '../bash/commands.js';
import { tryFastCat } from '../bash/fast.js';
import { ToolError, TransportError } from '../core/errors.js';
import { iso } from '../core/time.js';
import { ENTRY_PAGE } from './big-trees.js';
import { ROOT, isLive, navigablePath } from './common.js';
import { defineTool, type AnyTool } from './registry.js';
import { changeOp, changesetId, mutationOutputOf, timestamp, version } from './output-shapes.js';

const bashOutput = mutationOutputOf({
  stdout: z.string(),
  stderr: z.string(),
  exitCode: z.number().int().describe('0 success; grep: 1 no match; 124 timeout; 126 a command limit.'),
  truncated: z.boolean().describe('Output beyond the limit was dropped.'),
  changesetId: changesetId.nullable().describe('The changeset of the files this command changed (null: none).'),
  changed: z.array(z.strictObject({ path: z.string(), op: changeOp, version, updatedAt: timestamp })).describe('The first 100 paths changed.'),
  changedCount: z.number().int().optional().describe('When more than 100 changed: all of them.'),
  changedTruncated: z.literal(true).optional(),
});

const bash = defineTool({
  name: 'bash',
  family: 'bash',
  scopes: ['files:read'],
  summary: 'Run Unix commands (ls, find, grep, cat, head, sed, awk, jq, …) against your files; pipes and redirections work.',
  description:
    'Runs a shell command line over your filesystem (your tree, minus what the key cannot see). Behaves like GNU tools: ' +
    '`grep -rn pattern /dir`, `find / -name "*.md"`, `ls -la`, `head -n 20 f`, `wc -l`, pipes (`|`), `;`, `&&`, `||`, ' +
    'redirections (`>`, `>>`, `2>`, `2>&1`, `/dev/null`). grep exits 1 when nothing matches: that is not an error. ' +
    'Commands that change files (mkdir, touch, cp, mv, rm, tee, sed -i, > file) need files:write (and files:delete for ' +
    'rm/mv); without them they fail with "Permission denied (this key lacks files:write)". All changes of one call become one ' +
    'changeset. Limits: wall time (exit 124, TIMEOUT), output size (truncated), and a few commands of an agent at once (more: 429 ' +
    'RATE_LIMITED with details.limit "bash_concurrency", get_key_info limits.bashConcurrent). Files have no permission bits ' +
    '(chmod fails) and no links (no ln); which finds commands in /usr/bin. Other commands answer "command not found" (exit 127). ' +
    `Commands: ${BASH_COMMANDS.join(', ')}, cd, test/[.`,
  input: z.strictObject({
    // The shell parser is superlinear on some inputs (98k chars of '{"' take ~8 s of a shared worker);
    // 16k chars bound that to ~0.25 s. Longer scripts belong in a file.
    command: z.string().min(1).max(16_000).describe('The command line (at most 16,000 characters), e.g. "grep -rn TODO /src | head -20".'),
    cwd: z.string().default('/').describe('Working directory (default /).'),
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
    if (cwd !== ROOT) {
      const node = await ctx.store.getNode(ctx.auth.agentId, cwd);
      if (!isLive(node) || node.kind !== 'dir') {
        throw new ToolError('INVALID_INPUT', `cwd ${cwd} is not an existing directory. Use / or a directory that exists.`, { field: 'cwd' });
      }
    }
    const { scopes, agentId, folder } = ctx.auth;
    const access = { agentId, folder, canWrite: scopes.includes('files:write'), canDelete: scopes.includes('files:delete') };
    const fast = await tryFastCat(ctx.store, access, input.command, cwd, ctx.config.bashMaxOutputBytes);
    if (fast) return { success: true, ...fast, truncated: false, changesetId: null, changed: [] };
    const max = ctx.config.bashMaxConcurrentPerAgent;
    const slot = ctx.bashSlots.take(agentId, max);
    if (!slot.taken) {
      const { running } = slot;
      // Its own fields and headers: the request budget (X-RateLimit-*) is not what ran out.
      throw new TransportError(
        'RATE_LIMITED',
        `${running} bash commands of this agent are already running, the most that may run at once (BASH_MAX_CONCURRENT_PER_AGENT = ${max}; ` +
          'get_key_info limits.bashConcurrent). This is not the request budget (X-RateLimit-Remaining counts that). Wait for one to finish, then retry in 1 s.',
        {
          details: { limit: 'bash_concurrency', max, running, retryAfterSeconds: 1 },
          headers: { 'retry-after': '1', 'x-bash-concurrency-limit': String(max), 'x-bash-concurrency-running': String(running) },
        },
      );
    }
    const outcome = await ctx.bash
      .run({
        command: input.command,
        cwd,
        access,
        timeoutMs: ctx.config.bashTimeoutMs,
        maxOutputBytes: ctx.config.bashMaxOutputBytes,
        maxCommands: ctx.config.bashMaxCommands,
      })
      .finally(() => ctx.bashSlots.release(agentId));
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
      changed: changeset
        ? changeset.entries.slice(0, ENTRY_PAGE).map((e) => ({ path: e.path, op: e.op, version: e.toVersion, updatedAt: iso(e.updatedAtMs) }))
        : [],
      ...(changeset && changeset.entries.length > ENTRY_PAGE ? { changedCount: changeset.entries.length, changedTruncated: true } : {}),
    });
    if (outcome.changes.length) {
      const tooBig = outcome.changes.find((c) => c.state.kind === 'file' && c.state.blob.size > ctx.config.maxFileBytes);
      if (tooBig) {
        stderr += `bash: ${tooBig.path}: File too large (limit ${ctx.config.maxFileBytes} bytes); no change of this command was saved\n`;
        exitCode = exitCode || 1;
      } else {
        try {
          return await ctx.commit(outcome.changes, respond);
        } catch (err) {
          if (!(err instanceof ToolError) || err.code !== 'QUOTA_EXCEEDED') throw err;
          stderr += `bash: No space left on device: ${err.message} No change of this command was saved.\n`;
          exitCode = exitCode || 1;
        }
      }
    }
    return respond(null);
  },
});

export const bashTools: AnyTool[] = [bash];
