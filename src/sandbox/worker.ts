/**
 * A bash worker thread: runs commands with just-bash over a StoreFs, off the main event loop,
 * and returns the output and the planned changes. The main thread commits them, and kills the
 * thread if it overruns its hard deadline.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Shell, runTrusted } from './just-bash.js';
import { openStore } from '../store/open.js';
import { openJobFs, type JobFs } from './mounted-fs.js';
import { BASH_COMMANDS, type BashJob, type BashOutcome } from './commands.js';
import { installGnuCommands } from '../gnu/index.js';
import { BlobCache } from './blob-cache.js';
import { watchSearches } from './search-watch.js';

const store = openStore({ ...workerData.store, pgPoolSize: 2 }, { reader: true });
// The pool stops a regex search of this thread that runs past its budget (search-watch.ts).
if (workerData.searches) watchSearches(workerData.searches);
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

// One interpreter per thread, reused from its initial state (Shell, just-bash.ts): building one
// per job cost more than running `cat`. The filesystem is the job's own (openJobFs), never reused:
// our commands take the job's filesystem once, when they start.
let shell: { shell: Shell; timeoutMs: number; maxCommands: number } | null = null;
/** The running job's filesystem; null between jobs (a command started then fails). */
let jobFs: JobFs | null = null;

function currentJobFs(): JobFs {
  if (!jobFs) throw new Error('EIO: no bash job is running on this worker');
  return jobFs;
}

function newShell(job: BashJob, fs: JobFs): Shell {
  return new Shell({
    fs,
    commands: BASH_COMMANDS,
    // grep, find read the job's StoreFs directly: the per-command context membrane copies every buffer.
    customCommands: installGnuCommands(currentJobFs, BASH_COMMANDS),
    env: BASE_ENV,
    limits: {
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
}

/** The interpreter for this job: this thread's, unless its limits differ or it cannot be reset. */
export function shellFor(job: BashJob, fs: JobFs): Shell {
  if (!shell || !shell.shell.reusable || shell.timeoutMs !== job.timeoutMs || shell.maxCommands !== job.maxCommands) {
    shell = { shell: newShell(job, fs), timeoutMs: job.timeoutMs, maxCommands: job.maxCommands };
  }
  return shell.shell;
}

async function run(job: BashJob): Promise<BashOutcome> {
  const handle = openJobFs(store, job.access, runTrusted, cache);
  const fs = handle.fs;
  jobFs = fs;
  try {
    const sh = shellFor(job, fs);
    const started = Date.now();
    // Messages shaped, a rejected run reported as bash would (exit 1): just-bash.ts.
    const { stdout, stderr, exitCode, atDeadline, outputLimit } = await sh.run(job.command, job.cwd, fs);
    const timedOut = exitCode === 124 && (Date.now() - started >= job.timeoutMs - 50 || atDeadline);
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
      truncated: o.cut || e.cut || outputLimit,
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
// compiling just-bash's code, the store's first queries), seconds on a busy machine: a read-only
// command over an agent id no agent has pays it before the thread reports ready, so the first bash
// call after a start (and the pool's standby, pool.ts) answers at once (measured: ~1.3 s -> ~50 ms
// for the first call on a loaded 2-core VM).
const warm = workerData.warm as { timeoutMs: number; maxCommands: number } | undefined;
const NO_AGENT = 'agt_warm_up_no_agent';
const nobody = { agentId: NO_AGENT, folder: null, canWrite: false, canDelete: false, viewer: { agentId: NO_AGENT } };
const WARM_UP_COMMAND =
  "echo warm | cat | wc -l; ls -la /; grep -rn x /; find / -name x; sed -n 1p /dev/null; awk '{print}' /dev/null; sort /dev/null | uniq | head -1 | tail -1";
const warmed: Promise<unknown> = (
  warm ? run({ id: 0, command: WARM_UP_COMMAND, cwd: '/', access: nobody, maxOutputBytes: 1024, ...warm }) : Promise.resolve()
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
