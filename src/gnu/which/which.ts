/** `which`: every offered command is found in /usr/bin and /bin, as `command -v` finds it. */
import { defineCommand, type CustomCommand, type Ctx } from '../kit/command.js';

/** Where `which` (and `command -v`) finds the commands: every one is in both (usrmerge). */
const BIN_DIRS = ['/usr/bin', '/bin'];
/** Offered commands that are files in /usr/bin on GNU systems; `help` is a builtin only. */
const programSet = (offered: readonly string[]) => new Set<string>([...offered.filter((c) => c !== 'help'), 'test', '[']);

/** `offered`: the commands the shell runs, which `which` finds in the bin directories. */
export function whichCommand(offered: readonly string[]): CustomCommand {
  const PROGRAMS = programSet(offered);
  return defineCommand('which', async (args, ctx: Ctx) => {
    let all = false;
    const names: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      if (a === '--') {
        names.push(...args.slice(i + 1));
        break;
      }
      if (/^-[as]+$/.test(a)) all ||= a.includes('a');
      else if (a.startsWith('-') && a !== '-')
        return { stdout: '', stderr: `Illegal option ${a.slice(0, 2)}\nUsage: /usr/bin/which [-as] args\n`, exitCode: 2 };
      else names.push(a);
    }
    if (!names.length) return { stdout: '', stderr: '', exitCode: 1 };
    const path = (ctx.env.get('PATH') ?? '/usr/bin:/bin').split(':');
    let stdout = '';
    let exitCode = 0;
    for (const name of names) {
      const found: string[] = [];
      if (name.includes('/')) {
        // Files of the store are never executable: only a command's own path is one.
        const dir = name.slice(0, name.lastIndexOf('/'));
        if (BIN_DIRS.includes(dir) && PROGRAMS.has(name.slice(dir.length + 1))) found.push(name);
      } else if (PROGRAMS.has(name)) {
        for (const dir of path) if (BIN_DIRS.includes(dir.replace(/\/+$/, ''))) found.push(`${dir.replace(/\/+$/, '')}/${name}`);
      }
      if (!found.length) exitCode = 1;
      stdout += (all ? found : found.slice(0, 1)).map((f) => f + '\n').join('');
    }
    return { stdout, stderr: '', exitCode };
  });
}
