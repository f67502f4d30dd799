/**
 * A bash worker thread: runs commands with just-bash over a StoreFs, off the main event loop,
 * and returns the output and the planned changes. The main thread commits them, and kills the
 * thread if it overruns its hard deadline.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Bash, DefenseInDepthBox, type CommandName, type IFileSystem } from './just-bash.js';
import { openStore } from '../store/open.js';
import { openJobFs, type JobFs } from './mounted-fs.js';
import { BASH_COMMANDS, type BashJob, type BashOutcome } from './commands.js';
import { installGnuCommands } from '../gnu/index.js';
import { gnuShellErrors } from './shell-errors.js';
import { BlobCache } from './blob-cache.js';
import { watchSearches } from './search-watch.js';

const store = openStore({ ...workerData.store, pgPoolSize: 2 }, { reader: true });
// The pool stops a regex search of this thread that runs past its budget (search-watch.ts).
if (workerData.searches) watchSearches(workerData.searches);
const trusted = <T>(fn: () => Promise<T>) => DefenseInDepthBox.runTrustedAsync(fn);
// Contents this worker read recently, by (agent, hash): repeated greps over one tree skip the store.
const cache = new BlobCache(workerData.cacheBytes ?? 32 * 1024 * 1024);
// Outputs beyond this stop the command; below it they are cut to the job's limit and flagged.
const HARD_OUTPUT_BYTES = 8 * 1024 * 1024;
const BASE_ENV = { HOME: '/', PATH: '/usr/bin:/bin', USER: 'agent', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' };

function cut(text: string, max: number): { text: string; cut: boolean } {
  if (Buffer.byteLength(text, 'utf8') <= max) return { text, cut: false };
  return {
    text: Buffer.from(text, 'utf8')
      .subarray(0, max)
      .toString('utf8')
      .replace(/\uFFFD$/, ''),
    cut: true,
  };
}

// One interpreter per thread, reused: building one cost more than running `cat` (measured: ~15%
// of a worker's time). just-bash copies some shell state per exec() but shares the rest (shopt
// options, exported and readonly names, the command hash), so every command starts from a clone
// of the state the interpreter had when new: nothing one command (or agent) sets reaches the next.
// The filesystem is the job's own (openJobFs), never reused: just-bash builds each exec's
// context from `bash.fs`, and our commands take the job's filesystem once, when they start.
interface Shell {
  bash: Bash;
  timeoutMs: number;
  maxCommands: number;
  pristine: unknown;
}
let shell: Shell | null = null;
/** The running job's filesystem; null between jobs (a command started then fails). */
let jobFs: JobFs | null = null;

function currentJobFs(): JobFs {
  if (!jobFs) throw new Error('EIO: no bash job is running on this worker');
  return jobFs;
}

type WithState = { state?: unknown };

function newShell(job: BashJob, fs: JobFs): Shell {
  const bash = new Bash({
    fs,
    cwd: '/',
    commands: BASH_COMMANDS as unknown as CommandName[],
    // grep, find read the job's StoreFs directly: the per-command context membrane copies every buffer.
    customCommands: installGnuCommands(currentJobFs, BASH_COMMANDS),
    env: BASE_ENV,
    executionLimits: {
      maxExecutionTimeMs: job.timeoutMs,
      maxOutputSize: HARD_OUTPUT_BYTES,
      // BASH_MAX_COMMANDS (default 10,000,000): just-bash's own default (100,000 commands or loop
      // iterations) ended `while true` with exit 126 before BASH_TIMEOUT_MS on fast machines and
      // stopped long loops GNU bash finishes; the wall-time limit stays the usual guard.
      maxCommandCount: job.maxCommands,
      maxLoopIterations: job.maxCommands,
      // awk counts records (lines read) and loop iterations, sed its cycles, against their own
      // limit (default 100,000): `awk '{n++}'` failed on a file of more than 100,000 lines.
      maxAwkIterations: job.maxCommands,
      maxSedIterations: job.maxCommands,
      maxWorkUnits: Math.max(job.maxCommands, 1_000_000),
    },
  });
  let pristine: unknown = null;
  try {
    pristine = structuredClone((bash as unknown as WithState).state ?? null);
  } catch {
    pristine = null; // unknown internals: never reuse this interpreter
  }
  return { bash, timeoutMs: job.timeoutMs, maxCommands: job.maxCommands, pristine };
}

/** The interpreter for this job, in the state a new one would have, running on `fs`. */
export function shellFor(job: BashJob, fs: JobFs): Bash {
  if (shell && shell.pristine && shell.timeoutMs === job.timeoutMs && shell.maxCommands === job.maxCommands) {
    (shell.bash as unknown as WithState).state = structuredClone(shell.pristine);
  } else {
    shell = newShell(job, fs);
  }
  (shell.bash as { fs: IFileSystem }).fs = fs;
  return shell.bash;
}

async function run(job: BashJob): Promise<BashOutcome> {
  const handle = openJobFs(store, job.access, trusted, cache);
  const fs = handle.fs;
  jobFs = fs;
  try {
    const bash = shellFor(job, fs);
    let stdout = '';
    let stderr = '';
    let exitCode: number;
    const started = Date.now();
    try {
      const r = await bash.exec(job.command, { cwd: job.cwd });
      stdout = r.stdout;
      stderr = r.stderr;
      exitCode = r.exitCode;
    } catch (err) {
      // just-bash rejects on some failures a shell reports on stderr (e.g. a redirect into a
      // missing directory): report them the way bash would.
      const msg = String((err as Error).message ?? err).replace(/^Error: /, '');
      stderr = `bash: ${msg}\n`;
      exitCode = 1;
    }
    stderr = gnuShellErrors(stderr);
    // just-bash ends a command at its deadline with exit 124 ("… exceeded … deadline").
    const timedOut = exitCode === 124 && (Date.now() - started >= job.timeoutMs - 50 || /deadline|time limit|timed out/i.test(stderr));
    const o = cut(stdout, job.maxOutputBytes);
    const e = cut(stderr, job.maxOutputBytes);
    // A command stopped at its deadline writes nothing: its changes may be half done. (Its
    // commands may still be running: the pool replaces this worker.)
    const changes = timedOut ? [] : await fs.plannedChanges();
    const mounted = timedOut || !('mountedChanges' in fs) ? [] : await fs.mountedChanges();
    const copied = timedOut || !('mountedCopies' in fs) ? [] : fs.mountedCopies();
    return {
      id: job.id,
      stdout: o.text,
      stderr: e.text,
      exitCode,
      truncated: o.cut || e.cut || (exitCode === 126 && /output size/i.test(stderr)),
      timedOut,
      changes,
      mounted,
      copied,
    };
  } finally {
    // From here on, anything of this job still under way fails at its next filesystem access.
    jobFs = null;
    handle.end();
  }
}

// Warm: the first command of a thread cost ~1 s more than the next (building the interpreter,
// compiling just-bash's code), seconds on a busy machine. A command that touches no file pays it
// before the thread reports ready, so the pool's standby (pool.ts) answers its first command at once.
const warm = workerData.warm as { timeoutMs: number; maxCommands: number } | undefined;
const nobody = { agentId: '', folder: null, canWrite: false, canDelete: false, viewer: { agentId: '' } };
const warmed: Promise<unknown> = (
  warm ? run({ id: 0, command: 'echo warm >/dev/null; true', cwd: '/', access: nobody, maxOutputBytes: 1024, ...warm }) : Promise.resolve()
)
  .catch(() => undefined)
  .then(() => parentPort!.postMessage({ ready: true }));

parentPort!.on('message', (job: BashJob) => {
  // After the warm-up: one command at a time on this thread's interpreter and jobFs.
  void warmed
    .then(() => {
      parentPort!.postMessage({ started: job.id }); // the pool counts worker time from here
      return run(job);
    })
    .then(
      (outcome) => parentPort!.postMessage(outcome),
      (err) =>
        parentPort!.postMessage({
          id: job.id,
          stdout: '',
          stderr: '',
          exitCode: 1,
          truncated: false,
          timedOut: false,
          changes: [],
          error: String((err as Error)?.stack ?? err),
        }),
    );
});
