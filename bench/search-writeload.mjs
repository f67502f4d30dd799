// The write load of bench/search.mjs, in its own process (forked, like bench/loadgen.mjs) so its
// CPU is not counted as the server's. One job over IPC: { baseUrl, apiKey, variant, connections,
// warmup, duration }; it sends { phase: 'measure' } when the measured run starts and then
// { ok, result } with the measured run's calls, latencies and errors.
//   variant 'words':    1 KB of words (the bench:bash tree's vocabulary, a new text per call) to one
//                       of 2,000 paths: every write is a file the indexer must tokenize and index.
//   variant 'scenario': npm run bench's `write` (1 KB of filler to one of 4 paths), for comparison
//                       with docs/benchmarks.md; the indexer indexes each path once per batch.
import autocannon from 'autocannon';
import { content1k } from './scenarios.mjs';
import { wordsText } from './search-corpus.mjs';

const PATHS = 2000;
const BODIES = {
  words: (i) => ({ path: `/w/d${i % 20}/f${i % PATHS}.txt`, content: wordsText(i) }),
  scenario: (i) => ({ path: `/bench/write-${i % 4}.txt`, content: content1k(i) }),
};
const TOOL_ERROR = /"isError"\s*:\s*true/;

function blast(job, seconds, next) {
  const latencies = [];
  let toolErrors = 0;
  let sample = null;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: job.baseUrl,
        connections: job.connections,
        duration: seconds,
        requests: [
          {
            method: 'POST',
            path: '/api/tools/write',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${job.apiKey}` },
            setupRequest: (req) => ({ ...req, body: JSON.stringify(BODIES[job.variant](next())) }),
            onResponse: (status, body) => {
              if (status < 200 || status >= 300 || TOOL_ERROR.test(body)) {
                toolErrors++;
                sample ??= `HTTP ${status} ${String(body).slice(0, 300)}`;
              }
            },
          },
        ],
      },
      (err, result) => {
        if (err) return reject(err);
        latencies.sort((a, b) => a - b);
        const at = (p) => latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)] ?? null;
        resolve({
          calls: latencies.length,
          durationS: result.duration,
          rps: latencies.length / result.duration,
          p50: at(50),
          p99: at(99),
          errors: result.errors + result.timeouts + toolErrors,
          sample,
        });
      },
    );
    instance.on('response', (_c, _s, _b, ms) => latencies.push(ms));
  });
}

process.once('message', async (job) => {
  try {
    let i = 0; // across warm-up and the measured run: contents never repeat
    const next = () => i++;
    if (job.warmup > 0) await blast(job, job.warmup, next);
    process.send({ phase: 'measure' });
    const result = await blast(job, job.duration, next);
    process.send({ ok: true, result }, () => process.exit(0));
  } catch (err) {
    process.send({ ok: false, error: String(err?.stack ?? err) }, () => process.exit(1));
  }
});
process.on('disconnect', () => process.exit(0));
