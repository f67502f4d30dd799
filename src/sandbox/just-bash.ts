/**
 * The one adapter to just-bash: everything this project uses of it, and every touch of its
 * internals, goes through this module (and its folder, just-bash/). It loads the bundle with the
 * declared textual fixes applied (just-bash/patches.ts), runs a command on a reusable interpreter
 * reset to its initial state (Shell), and shapes the shell's own messages in one place
 * (just-bash/messages.ts). just-bash is pinned to an exact version (package.json): its internals
 * used here (BashInternals) and the patches' texts are checked against that version.
 *
 * `npm run build` writes the patched bundle next to this file; if it is missing or was made from
 * another just-bash, the bundle is patched in memory and imported from a data: URL (~11 MB more
 * per thread). A bundle a patch no longer matches fails the build, and, if swapped in after it,
 * the import of this module, naming the patch.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type * as JustBash from 'just-bash';
import type { CommandName, CustomCommand, IFileSystem } from 'just-bash';
import { PATCHED_FILE_NAME, justBashVersion, patchBundle, sourceTag } from './just-bash/patches.js';
import { gnuShellErrors } from './just-bash/messages.js';
import { bindJustBash } from '../gnu/kit/command.js';

async function load(): Promise<typeof JustBash> {
  const bundleUrl = import.meta.resolve('just-bash');
  const source = readFileSync(fileURLToPath(bundleUrl), 'utf8');
  const built = new URL(PATCHED_FILE_NAME, import.meta.url);
  const builtPath = fileURLToPath(built);
  if (existsSync(builtPath) && readFileSync(builtPath, 'utf8').startsWith(sourceTag(source))) {
    return (await import(built.href)) as typeof JustBash;
  }
  // Throws, naming the patch, on a bundle that is not the one the patches were written for: it
  // must not run with the fixes silently gone.
  const patched = patchBundle(source, bundleUrl, justBashVersion(bundleUrl));
  return (await import(`data:text/javascript;base64,${Buffer.from(patched).toString('base64')}`)) as typeof JustBash;
}

const justBash = await load();

export const { Bash, InMemoryFs, defineCommand, latin1FromBytes, decodeBytesToUtf8 } = justBash;
// The GNU commands (src/gnu) use this instance's helpers.
bindJustBash(justBash);
export type Bash = JustBash.Bash;
export type InMemoryFs = JustBash.InMemoryFs;
export type { Command, CommandName, CustomCommand, FsStat, IFileSystem } from 'just-bash';
export { gnuShellErrors };

/**
 * Runs `fn` (a store query) as trusted code: while a script runs, just-bash's defense in depth
 * blocks timers and process.env, which database drivers use.
 */
export const runTrusted = <T>(fn: () => Promise<T>): Promise<T> => justBash.DefenseInDepthBox.runTrustedAsync(fn);

/**
 * What this adapter uses of a Bash instance beyond its public API, present in the pinned version:
 * `state`, the shell state exec() shares between calls (shopt options, exported and readonly
 * names, the command hash); `fs`, read by every exec() to build its context (public, read-only
 * in the types); `commands`, the registered commands. A supported reset is asked for upstream
 * (docs/upstream/state-reset.md).
 */
interface BashInternals {
  state?: unknown;
  fs: IFileSystem;
  commands?: Map<string, unknown>;
}
const internals = (bash: Bash): BashInternals => bash as unknown as BashInternals;

/** Every command a plain interpreter of the installed just-bash has (builtins aside). */
export function engineCommandNames(): string[] {
  return [...(internals(new Bash({ fs: new InMemoryFs() })).commands?.keys() ?? [])];
}

const ENGINE_COMMANDS = new Set(justBash.getCommandNames());
const isEngineCommand = (name: string): name is CommandName => ENGINE_COMMANDS.has(name);

export interface ShellOptions {
  /** The filesystem of the first run (each run names its own). */
  fs: IFileSystem;
  /** just-bash's own commands to offer (other names are ignored, as just-bash does). */
  commands: readonly string[];
  /** Commands that replace or add to just-bash's (their names win). */
  customCommands: CustomCommand[];
  env: Record<string, string>;
  limits: NonNullable<JustBash.BashOptions['executionLimits']>;
}

export interface ShellResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** just-bash ended the run at its deadline (exit 124, "… exceeded … deadline"). */
  atDeadline: boolean;
  /** just-bash stopped the run at maxOutputSize (exit 126). */
  outputLimit: boolean;
}

/** The result of one run, with just-bash's own signs of its limits read from its messages. */
function result(stdout: string, stderr: string, exitCode: number): ShellResult {
  return {
    stdout,
    stderr,
    exitCode,
    atDeadline: exitCode === 124 && /deadline|time limit|timed out/i.test(stderr),
    outputLimit: exitCode === 126 && /output size/i.test(stderr),
  };
}

/**
 * An interpreter reused across runs, each starting from the state it had when new: nothing one
 * command (or agent) sets reaches the next. Building one costs more than the run it serves
 * (measured: `new Bash` per job 2.2–2.7 ms of CPU against 1.0–1.1 ms for the reset, `cat` of one
 * file, one thread), so the state is cloned once and restored before each run instead.
 */
export class Shell {
  private readonly bash: Bash;
  /** The state of the new interpreter; null when it cannot be copied (unknown internals): such a Shell runs once. */
  private readonly pristine: unknown;
  private runs = 0;

  constructor(options: ShellOptions) {
    this.bash = new Bash({
      fs: options.fs,
      cwd: '/',
      commands: options.commands.filter(isEngineCommand),
      customCommands: options.customCommands,
      env: options.env,
      executionLimits: options.limits,
    });
    let pristine: unknown = null;
    try {
      const state = internals(this.bash).state;
      pristine = state === undefined ? null : structuredClone(state);
    } catch {
      pristine = null;
    }
    this.pristine = pristine;
  }

  /** Whether the next run can start from the initial state (else build a new Shell). */
  get reusable(): boolean {
    return this.runs === 0 || this.pristine !== null;
  }

  /**
   * Runs `command` on `fs` and answers as bash would: a failure just-bash rejects with (a
   * redirection it cannot open) is reported on stderr with exit 1, and the shell's messages are
   * shaped for an agent (just-bash/messages.ts).
   */
  async run(command: string, cwd: string, fs: IFileSystem): Promise<ShellResult> {
    if (!this.reusable) throw new Error('EIO: this interpreter cannot be reset; build a new Shell');
    const inner = internals(this.bash);
    if (this.runs++ > 0) inner.state = structuredClone(this.pristine);
    inner.fs = fs;
    try {
      const r = await this.bash.exec(command, { cwd });
      return result(r.stdout, gnuShellErrors(r.stderr), r.exitCode);
    } catch (err) {
      const msg = String((err as Error).message ?? err).replace(/^Error: /, '');
      return result('', gnuShellErrors(`bash: ${msg}\n`), 1);
    }
  }
}
