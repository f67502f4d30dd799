/**
 * The verbs that feel like a shell: ls, cat, put, get, edit, rm, mv, log, diff, restore, bash, and
 * `call` for any tool. Each returns its exit code; with --json it prints the tool's raw result.
 */
import { isUtf8 } from 'node:buffer';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { basename, join, posix } from 'node:path';
import { TOOLS, type AgentFiles, type ToolName } from '../client/index.js';
import { connect, EXIT, formatBytes, out, printJson, remotePath, UsageError, err, type VerbOptions } from './context.js';

type Opts = VerbOptions & Record<string, unknown>;

const done = (json: boolean | undefined, result: unknown, text: () => string | null): number => {
  if (json) printJson(result);
  else {
    const t = text();
    if (t !== null) out(t);
  }
  return EXIT.ok;
};

export async function ls(path: string | undefined, opts: Opts & { long?: boolean; recursive?: boolean }): Promise<number> {
  const client = await connect();
  const entries = [];
  let last;
  for (let cursor: string | undefined; ;) {
    last = await client.list({ path: remotePath(path), ...(opts.recursive ? { recursive: true } : {}), ...(cursor ? { cursor } : {}) });
    entries.push(...last.entries);
    if (!last.nextCursor) break;
    cursor = last.nextCursor;
  }
  if (opts.json) return done(true, { ...last, entries, nextCursor: null }, () => null);
  for (const e of entries) {
    const name = (opts.recursive ? e.path : e.name) + (e.type === 'directory' ? '/' : '');
    out(
      opts.long
        ? `${e.type === 'directory' ? 'd' : '-'} ${String(e.size).padStart(10)}  v${String(e.version).padEnd(4)} ${e.updatedAt ?? '-'.padEnd(24)}  ${name}`
        : name,
    );
  }
  return EXIT.ok;
}

/** The whole file's bytes (base64 reads answer the entire file, never a page). */
async function readBytes(client: AgentFiles, path: string) {
  const r = await client.read({ path, encoding: 'base64' });
  return { result: r, bytes: Buffer.from(r.content, 'base64') };
}

export async function cat(path: string, opts: Opts & { version?: string }): Promise<number> {
  const client = await connect();
  if (opts.json)
    return done(
      true,
      await client.read({ path: remotePath(path), ...(opts.version ? { version: toInt(opts.version, '--version') } : {}) }),
      () => null,
    );
  const r = await client.read({ path: remotePath(path), encoding: 'base64', ...(opts.version ? { version: toInt(opts.version, '--version') } : {}) });
  process.stdout.write(Buffer.from(r.content, 'base64'));
  return EXIT.ok;
}

export async function put(local: string, remote: string, opts: Opts): Promise<number> {
  const bytes = await readFile(local).catch((e: NodeJS.ErrnoException) => {
    throw new UsageError(`cannot read ${local}: ${e.code ?? e.message}`);
  });
  const target = remote.endsWith('/') ? posix.join(remotePath(remote), basename(local)) : remotePath(remote);
  const client = await connect();
  const text = isUtf8(bytes);
  const r = await client.write({
    path: target,
    content: text ? bytes.toString('utf8') : bytes.toString('base64'),
    encoding: text ? 'utf8' : 'base64',
  });
  return done(
    opts.json,
    r,
    () => `${r.unchanged ? 'unchanged' : r.created ? 'created' : 'updated'} ${r.path} (v${r.version}, ${formatBytes(r.size)})`,
  );
}

export async function get(remote: string, local: string | undefined, opts: Opts): Promise<number> {
  const client = await connect();
  const path = remotePath(remote);
  let target = local ?? basename(path);
  if ((await stat(target).catch(() => null))?.isDirectory()) target = join(target, basename(path));
  const { result, bytes } = await readBytes(client, path);
  await writeFile(target, bytes);
  return done(opts.json, result, () => `${path} v${result.version} → ${target} (${formatBytes(bytes.length)})`);
}

export async function edit(path: string, opts: Opts & { old: string; new: string; all?: boolean; dryRun?: boolean }): Promise<number> {
  const client = await connect();
  const r = await client.edit({
    path: remotePath(path),
    old_string: opts.old,
    new_string: opts.new,
    ...(opts.all ? { replace_all: true } : {}),
    ...(opts.dryRun ? { dryRun: true } : {}),
  });
  return done(
    opts.json,
    r,
    () => `${r.diff}${r.applied ? `\n${r.replacements} replacement(s); ${remotePath(path)} is now v${r.version}` : '\n(dry run: nothing changed)'}`,
  );
}

export async function rm(path: string, opts: Opts & { recursive?: boolean }): Promise<number> {
  const client = await connect();
  const r = await client.delete({ path: remotePath(path), ...(opts.recursive ? { recursive: true } : {}) });
  return done(opts.json, r, () => `deleted ${remotePath(path)}`);
}

export async function mv(from: string, to: string, opts: Opts & { overwrite?: boolean }): Promise<number> {
  const client = await connect();
  const r = await client.move({ from: remotePath(from), to: remotePath(to), ...(opts.overwrite ? { overwrite: true } : {}) });
  return done(opts.json, r, () => `moved ${remotePath(from)} → ${r.to}`);
}

export async function log(path: string, opts: Opts & { limit?: string }): Promise<number> {
  const client = await connect();
  const r = await client.listVersions({ path: remotePath(path), ...(opts.limit ? { limit: toInt(opts.limit, '--limit') } : {}) });
  return done(
    opts.json,
    r,
    () =>
      r.versions
        .map(
          (v) =>
            `v${String(v.version).padEnd(4)} ${v.updatedAt}  ${v.op.padEnd(7)} ${String(v.size).padStart(9)} B  ${v.contentHash?.replace(/^sha256:/, '').slice(0, 12) ?? '-'.padEnd(12)}  ${v.changesetId}`,
        )
        .join('\n') + (r.deleted ? `\n(${r.path} is deleted now: \`afs restore ${r.path} --version N\` brings a version back)` : ''),
  );
}

export async function diff(path: string, opts: Opts & { from?: string; to?: string }): Promise<number> {
  const client = await connect();
  const p = remotePath(path);
  let from = opts.from !== undefined ? toInt(opts.from, '--from') : undefined;
  const to = opts.to !== undefined ? toInt(opts.to, '--to') : undefined;
  if (from === undefined) {
    // Default: what the latest change did (the version before `to`, or before the current one).
    const current = to ?? (await client.stat({ path: p })).version;
    if (current <= 1) throw new UsageError(`${p} has one version only: nothing to compare (\`afs log ${p}\` lists them).`);
    from = current - 1;
  }
  const r = await client.diff({ path: p, fromVersion: from, ...(to !== undefined ? { toVersion: to } : {}) });
  return done(opts.json, r, () =>
    r.identical ? `v${r.fromVersion} and v${r.toVersion} are identical` : r.binary ? `v${r.fromVersion} and v${r.toVersion} differ (binary)` : r.diff,
  );
}

export async function restore(path: string, opts: Opts & { version: string; dryRun?: boolean }): Promise<number> {
  const client = await connect();
  const r = await client.restore({ path: remotePath(path), version: toInt(opts.version, '--version'), ...(opts.dryRun ? { dryRun: true } : {}) });
  return done(opts.json, r, () => (opts.dryRun ? JSON.stringify(r, null, 2) : `restored ${remotePath(path)} to the content of v${opts.version}`));
}

/** Prints the command's output as a local shell would, and exits with its exit code. */
export async function bash(command: string, opts: Opts & { cwd?: string }): Promise<number> {
  const client = await connect();
  const r = await client.bash({ command, ...(opts.cwd ? { cwd: remotePath(opts.cwd) } : {}) });
  if (opts.json) printJson(r);
  else {
    process.stdout.write(r.stdout);
    process.stderr.write(r.stderr);
    if (r.truncated) err('afs: output truncated by the service (narrow the command, e.g. | head, or page with sed -n).');
  }
  return r.exitCode;
}

export async function call(tool: string, json: string | undefined, _opts: Opts): Promise<number> {
  if (!TOOLS.some((t) => t.name === tool)) {
    throw new UsageError(`unknown tool ${JSON.stringify(tool)}. Tools: ${TOOLS.map((t) => t.name).join(', ')}`);
  }
  let input: unknown;
  try {
    input = JSON.parse(json ?? '{}');
  } catch (e) {
    throw new UsageError(`the input is not JSON (${(e as Error).message}); e.g. afs call read '{"path": "/notes/a.md"}'`);
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new UsageError('the input must be a JSON object, e.g. \'{"path": "/"}\'');
  const client = await connect();
  // Any tool's result is JSON: printed as is, --json or not.
  printJson(await client.call(tool as ToolName, input as never));
  return EXIT.ok;
}

export function toInt(v: string, flag: string): number {
  if (!/^\d+$/.test(v)) throw new UsageError(`${flag} needs a whole number (got ${JSON.stringify(v)}).`);
  return Number(v);
}
