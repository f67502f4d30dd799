// Load generator, run in its own process (forked by run.mjs) so its CPU use
// is not counted against the server's event loop. Receives one job over IPC:
//   { baseUrl, apiKey, scenario, connections, duration, warmup }
// runs the scenario's setup, a discarded warm-up, then the measured run, and
// replies with { ok: true, result } or { ok: false, error }.
import autocannon from 'autocannon';
import { scenarios } from './scenarios.mjs';

const TOOL_ERROR = /"isError"\s*:\s*true/;
const MAX_SAMPLES = 3;

async function call(baseUrl, apiKey, tool, body) {
  const res = await fetch(`${baseUrl}/api/tools/${tool}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok || TOOL_ERROR.test(text)) throw new Error(`setup ${tool} failed: HTTP ${res.status} ${text.slice(0, 500)}`);
  return text;
}

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

// One autocannon run. `next` hands out the per-request counter, shared by
// warm-up and measured run so write contents never repeat.
function blast(job, sc, seconds, next) {
  const latencies = []; // own copy: autocannon's histogram rounds to whole ms
  let toolErrors = 0;
  const samples = [];
  const sample = (status, body) => {
    if (samples.length < MAX_SAMPLES) samples.push({ status, body: String(body).slice(0, 300) });
  };
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: job.baseUrl,
        connections: job.connections,
        duration: seconds,
        requests: [
          {
            method: 'POST',
            // bare server ignores the path; keep the real URL shape anyway
            path: sc.path ?? `/api/tools/${sc.tool ?? 'read'}`,
            headers: { 'content-type': 'application/json', authorization: `Bearer ${job.apiKey}`, ...sc.headers },
            setupRequest: (req) => ({ ...req, body: JSON.stringify(sc.bodyFor(...next())) }),
            onResponse: (status, body) => {
              if (status >= 200 && status < 300) {
                if (TOOL_ERROR.test(body)) {
                  toolErrors++;
                  sample(status, body);
                }
              } else {
                sample(status, body);
              }
            },
          },
        ],
      },
      (err, result) => {
        if (err) return reject(err);
        latencies.sort((a, b) => a - b);
        resolve({
          requests: latencies.length,
          durationS: result.duration,
          rps: latencies.length / result.duration,
          p50: percentile(latencies, 50),
          p99: percentile(latencies, 99),
          max: latencies.at(-1) ?? null,
          errors: result.errors, // connection errors + timeouts
          timeouts: result.timeouts,
          toolErrors, // 2xx replies with isError: true
          non2xx: result.non2xx,
          statusCodes: result.statusCodeStats,
          samples,
        });
      },
    );
    // all responses, whatever the status, count towards latency and req/s
    instance.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
  });
}

async function runJob(job) {
  const sc = scenarios.find((s) => s.name === job.scenario);
  if (!sc) throw new Error(`unknown scenario ${job.scenario}`);
  await sc.setup({
    call: async (tool, body) => JSON.parse(JSON.parse(await call(job.baseUrl, job.apiKey, tool, body)).content[0].text),
    // A second agent (the owner of what a scenario reads through /shared): its key and slug.
    register: async (name) => {
      const res = await fetch(`${job.baseUrl}/api/users/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      });
      if (res.status !== 201) throw new Error(`setup register failed: HTTP ${res.status}`);
      return res.json();
    },
    callAs: async (key, tool, body) => JSON.parse(JSON.parse(await call(job.baseUrl, key, tool, body)).content[0].text),
  });
  // next() → [i, phase, k]: i is unique across warm-up and measured run (write contents never
  // repeat); k counts requests within the phase, for scenarios that keep per-phase state.
  let i = 1; // setup may use 0
  const phaseCounter = (phase) => {
    let k = 0;
    return () => [i++, phase, k++];
  };
  if (job.warmup > 0) await blast(job, sc, job.warmup, phaseCounter('warmup'));
  // The parent reads the server's CPU time now and when the result arrives (run.mjs cpuOf).
  process.send({ phase: 'measure' });
  return blast(job, sc, job.duration, phaseCounter('measure'));
}

process.once('message', (job) => {
  runJob(job).then(
    (result) => process.send({ ok: true, result }, () => process.exit(0)),
    (err) => process.send({ ok: false, error: String(err?.stack ?? err) }, () => process.exit(1)),
  );
});
// If the harness goes away, stop generating load.
process.on('disconnect', () => process.exit(0));
