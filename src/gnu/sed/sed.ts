/**
 * sed's error reporting as GNU prints it. just-bash reports every failed write (and every
 * unreadable file) as "No such file or directory", so an agent with a read-only key was told its
 * file does not exist. sed runs just-bash's own and only its error lines are corrected:
 *   - a file that does not exist: `sed: can't read F: No such file or directory` (exit 2);
 *   - `sed -i` on a file it cannot replace: `sed: couldn't edit F: Permission denied (this key
 *     lacks files:write)` (exit 4). GNU names the temporary file it failed to create beside F
 *     (`couldn't open temporary file ./sedXXXXXX`): a name that exists nowhere, so it is not shown.
 */
import { defineCommand, type CustomCommand, type Ctx } from '../kit/command.js';
import { errnoMessage } from '../kit/errno.js';

/** Whether sed's arguments ask for in-place editing (-i, -iSUFFIX, --in-place[=SUFFIX], -ni…). */
function inPlace(args: string[]): boolean {
  for (const a of args) {
    if (a === '--') break;
    if (a === '--in-place' || a.startsWith('--in-place=')) return true;
    if (/^-[^-]/.test(a)) {
      // Short options up to one that takes an argument (-e, -f, -l): -i inside a cluster counts.
      for (const c of a.slice(1)) {
        if (c === 'i') return true;
        if (c === 'e' || c === 'f' || c === 'l') break;
      }
    }
  }
  return false;
}

export function sedCommand(): CustomCommand {
  return defineCommand('sed', async (args, ctx: Ctx) => {
    const r = await ctx.origCommand!(args);
    if (r.exitCode === 0 || !/No such file or directory/.test(r.stderr)) return r;
    const editing = inPlace(args);
    let exitCode = r.exitCode;
    const lines: string[] = [];
    for (const line of r.stderr.split('\n')) {
      const m = /^sed: (.+): No such file or directory$/.exec(line);
      if (!m || m[1]!.startsWith("can't read ")) {
        lines.push(line);
        continue;
      }
      const name = m[1]!;
      const path = ctx.fs.resolvePath(ctx.cwd, name);
      let exists = false;
      try {
        exists = (await ctx.fs.stat(path)).isFile;
      } catch {
        exists = false;
      }
      if (!exists) {
        lines.push(`sed: can't read ${name}: No such file or directory`);
        exitCode = Math.max(exitCode, 2);
        continue;
      }
      if (editing) {
        // Same bytes back: changes nothing when writable, reveals why not when it is not.
        try {
          await ctx.fs.writeFile(path, await ctx.fs.readFileBuffer(path));
        } catch (e) {
          lines.push(`sed: couldn't edit ${name}: ${errnoMessage(e)}`);
          exitCode = 4;
          continue;
        }
      }
      lines.push(line);
    }
    return { ...r, stderr: lines.join('\n'), exitCode };
  });
}
