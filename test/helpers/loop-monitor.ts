/**
 * Watches this process's event loop (the in-process test server's) with a 5 ms timer: the longest
 * gap between ticks, and how much of it the main thread spent on a CPU (Linux schedstat). A gap
 * full of CPU time is the event loop held by work; a gap of waiting is the thread descheduled by
 * a busy machine (other test files and other sessions share its two cores), which no code of
 * ours can prevent. Elsewhere busy time is taken to be the whole gap.
 */
import { readFileSync } from 'node:fs';

const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;

function onCpuNs(): number | null {
  try {
    return Number(readFileSync(SCHEDSTAT, 'utf8').split(' ')[0]);
  } catch {
    return null;
  }
}

/**
 * The main thread's CPU time in ms (schedstat; wall time where there is none): what a guard on a
 * synchronous call should judge, since a loaded machine stretches its wall time, not its CPU time.
 */
export function mainThreadCpuMs(): number {
  const ns = onCpuNs();
  return ns === null ? performance.now() : ns / 1e6;
}

export interface LoopReport {
  /** Longest wall-clock gap between two ticks. */
  maxGapMs: number;
  /** Most main-thread CPU time between two ticks: how long work held the event loop. */
  maxBusyMs: number;
}

export function monitorLoop(): { stop(): LoopReport } {
  let last = performance.now();
  let lastCpu = onCpuNs();
  let maxGapMs = 0;
  let maxBusyMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    const cpu = onCpuNs();
    const gap = now - last;
    maxGapMs = Math.max(maxGapMs, gap);
    maxBusyMs = Math.max(maxBusyMs, cpu !== null && lastCpu !== null ? (cpu - lastCpu) / 1e6 : gap);
    last = now;
    lastCpu = cpu;
  }, 5);
  return {
    stop() {
      clearInterval(timer);
      return { maxGapMs, maxBusyMs };
    },
  };
}
