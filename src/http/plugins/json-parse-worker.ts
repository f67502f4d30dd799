/**
 * The JSON body parser's thread (json-body.ts): parses a large body and counts its values, so
 * that neither a 16 MB string nor millions of tiny values are parsed on the event loop. A body
 * of more values than it is given comes back refused; the rest comes back parsed (a structured
 * clone: a few big strings cost a copy, and the values are bounded).
 */
import { parentPort, workerData } from 'node:worker_threads';

const maxValues = (workerData as { maxValues: number }).maxValues;

/** The values of `root` (itself, its members and elements, all the way down), up to max + 1. */
function countValues(root: unknown, max: number): number {
  let n = 0;
  const stack: unknown[] = [root];
  while (stack.length && n <= max) {
    const v = stack.pop();
    n++;
    if (Array.isArray(v)) for (const x of v) stack.push(x);
    else if (v !== null && typeof v === 'object') for (const x of Object.values(v)) stack.push(x);
  }
  return n;
}

parentPort!.on('message', ({ id, text }: { id: number; text: string }) => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    parentPort!.postMessage({ id, ok: false, message: (err as Error).message, code: 'SYNTAX' });
    return;
  }
  if (countValues(value, maxValues) > maxValues) {
    parentPort!.postMessage({ id, ok: false, message: `more than ${maxValues} values`, code: 'TOO_MANY_VALUES' });
    return;
  }
  parentPort!.postMessage({ id, ok: true, value });
});
