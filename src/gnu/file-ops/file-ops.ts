/** mkdir, rmdir, touch, cp and mv: just-bash's own, with filesystem errors in GNU's words (naming a scope the key lacks). */
import { posix } from 'node:path';
import { defineCommand, type CustomCommand, type Ctx } from '../kit/command.js';
import { gnuErrnoMessages } from '../kit/errno.js';

/** The operands of cp or mv: the sources and the destination (the last one). */
function operands(args: string[]): { sources: string[]; dest: string } | null {
  const ops: string[] = [];
  let options = true;
  for (const a of args) {
    if (options && a === '--') options = false;
    else if (!options || !a.startsWith('-') || a === '-') ops.push(a);
  }
  return ops.length >= 2 ? { sources: ops.slice(0, -1), dest: ops[ops.length - 1]! } : null;
}

/**
 * cp's and mv's refusals name the destination, as GNU's do: "mv: cannot move 'a' to 'd/a': …",
 * "cp: cannot create regular file 'd/a': …" (just-bash: "cannot move 'a': …", "cannot copy 'a': …").
 */
async function namedDestinations(name: string, args: string[], ctx: Ctx, stderr: string): Promise<string> {
  const ops = operands(args);
  if (!ops || (name !== 'mv' && name !== 'cp')) return stderr;
  const isDir = async (p: string) => {
    try {
      return (await ctx.fs.stat(ctx.fs.resolvePath(ctx.cwd, p))).isDirectory;
    } catch {
      return false; // a new name, or a missing source
    }
  };
  const intoDir = await isDir(ops.dest);
  const target = (src: string) => (intoDir ? `${ops.dest.replace(/\/+$/, '')}/${posix.basename(src)}` : ops.dest);
  if (name === 'mv')
    return stderr.replace(
      /^mv: cannot move '(.+)': (.*)$/gm,
      (_m, src: string, why: string) => `mv: cannot move '${src}' to '${target(src)}': ${why}`,
    );
  const dirs = new Set<string>();
  for (const src of ops.sources) if (await isDir(src)) dirs.add(src);
  return stderr.replace(
    /^cp: cannot copy '(.+)': ((?:Permission denied|Read-only file system).*)$/gm,
    (_m, src: string, why: string) => `cp: cannot create ${dirs.has(src) ? 'directory' : 'regular file'} '${target(src)}': ${why}`,
  );
}

/** just-bash's own commands that change files, with filesystem errors in GNU's words. */
function gnuErrors(name: string): CustomCommand {
  return defineCommand(name, async (args, ctx: Ctx) => {
    const r = await ctx.origCommand!(args);
    return r.exitCode === 0 ? r : { ...r, stderr: await namedDestinations(name, args, ctx, gnuErrnoMessages(r.stderr)) };
  });
}

export function fileOpCommands(): CustomCommand[] {
  return ['mkdir', 'rmdir', 'touch', 'cp', 'mv'].map(gnuErrors);
}
