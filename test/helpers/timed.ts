/**
 * Timing a pure function on a worst-case input without letting a regression hang the run:
 * the call runs in a worker thread, which is terminated past the deadline (a synchronous call
 * on the test's own thread could not be interrupted by a test timeout). The worker imports the
 * compiled module, times only the call, and posts back the value or the ToolError.
 */
import { Worker } from 'node:worker_threads';

export interface Timed<T> {
  /** The call's CPU time on its thread (Linux; wall time elsewhere). */
  ms: number;
  /** With a `work` export: the longest stretch between two checkpoints (event-loop time when sliced). */
  longestStep: number;
  value?: T;
  error?: { code: string; message: string; details: any };
}

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
// This thread's CPU time (Linux schedstat), else wall time: a loaded machine stretches wall time,
// and a guard that judges it fails for the machine, not the code.
const cpuNow = () => {
  try { return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6; } catch { return performance.now(); }
};
(async () => {
  const m = await import(workerData.url);
  const t0 = cpuNow();
  let longestStep = 0;
  try {
    let value;
    if (workerData.work && typeof m[workerData.work] === 'function') {
      // Drive the resumable work by hand, timing each stretch between checkpoints.
      const g = m[workerData.work](...workerData.args);
      for (;;) {
        // Wall time per step: a /proc read per step would cost more than many steps do.
        const s = performance.now();
        const r = g.next();
        longestStep = Math.max(longestStep, performance.now() - s);
        if (r.done) { value = r.value; break; }
      }
    } else {
      value = m[workerData.fn](...workerData.args);
      if (value && typeof value.then === 'function') value = await value;
    }
    const ms = cpuNow() - t0;
    parentPort.postMessage({ ms, longestStep: longestStep || ms, value });
  } catch (e) {
    const ms = cpuNow() - t0;
    if (!e || !e.code) throw e;
    parentPort.postMessage({ ms, longestStep: longestStep || ms, error: { code: e.code, message: e.message, details: e.details } });
  }
})();
`;

/**
 * Calls `fn` exported by dist/src/core/<module>.js with `args` in a worker; rejects when it
 * has not answered within `timeoutMs`. `fn` may be "name/workName": the generator `workName`
 * is driven step by step when the module has it (longestStep), else `name` is called.
 */
export function timed<T = any>(module: string, fn: string, args: unknown[], timeoutMs: number): Promise<Timed<T>> {
  const url = new URL(`../../src/core/${module}.js`, import.meta.url).href;
  const [name, work] = fn.split('/');
  const worker = new Worker(WORKER, { eval: true, workerData: { url, fn: name, work, args } });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(new Error(`${module}.${fn} did not finish within ${timeoutMs} ms`));
    }, timeoutMs);
    worker.once('message', (m: Timed<T>) => {
      clearTimeout(timer);
      void worker.terminate();
      resolve(m);
    });
    worker.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/** The fastest of `runs` timed calls (the VM is shared: one slow run is noise, every run slow is a finding). */
export async function fastest<T = any>(runs: number, module: string, fn: string, args: unknown[], timeoutMs: number): Promise<Timed<T>> {
  let best: Timed<T> | undefined;
  for (let i = 0; i < runs; i++) {
    const r = await timed<T>(module, fn, args, timeoutMs);
    if (!best || r.ms < best.ms) best = r;
  }
  return best!;
}
