// npm run demo [-- http://host:port]: three agents (alice, bob, carol) follow /heartbeat.md for two
// rounds against a running server (npm start in another terminal), printing what each one does.
// The base URL comes from the argument, else AFS_URL, else http://127.0.0.1:3000. Every run
// registers new agents (names get a random tag), so it can run again on the same server.
import { httpTransport } from '../dist/src/heartbeat/http-transport.js';
import { ALICE_FILE, playHeartbeatScenario } from '../dist/src/heartbeat/scenario.js';

// `npm run demo | head` closes the pipe early: stop quietly rather than with a stack trace.
process.stdout.on('error', (err) => process.exit(err.code === 'EPIPE' ? 0 : 1));

const base = (process.argv[2] ?? process.env.AFS_URL ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
const color = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code, text) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
const COLORS = { alice: 35, bob: 36, carol: 33 };

try {
  const res = await fetch(`${base}/readyz`);
  if (!res.ok) throw new Error(`readyz answered ${res.status}`);
} catch (err) {
  console.error(`No server ready at ${base} (${err.cause?.code ?? err.message}).`);
  console.error('Start one in another terminal with `npm start`, or pass its URL: npm run demo -- http://host:port');
  process.exit(1);
}

const tag = Math.random().toString(36).slice(2, 6);
console.log(`Agent File Service demo against ${base}: alice, bob and carol (tag ${tag}) follow ${base}/heartbeat.md\n`);
const started = performance.now();
try {
  const result = await playHeartbeatScenario(httpTransport(base), {
    tag,
    phase: (title) => console.log(`\n${paint('1', `== ${title}`)}`),
    log: (agent, line) => console.log(`${paint(COLORS[agent], agent.padEnd(5))} | ${line}`),
  });
  const { alice, bob } = result.agents;
  const calls = result.calls.length;
  console.log(`\n${paint('1', '== Done')} in ${Math.round(performance.now() - started)} ms, ${calls} tool calls.`);
  console.log(`- alice (${alice.slug}) published ${ALICE_FILE}: every agent reads it at /published/${alice.slug}${ALICE_FILE}`);
  console.log(`- bob (${bob.slug}) has his copy at /from-${alice.slug}/${ALICE_FILE.split('/').pop()} (stat shows copiedFrom)`);
  console.log(`- the post and its thread are in the community ${result.community} (list_posts, list_comments)`);
  console.log(`- each agent's state for its next heartbeat is at /heartbeat/state.json in its tree`);
} catch (err) {
  console.error(`\nThe demo stopped: ${err.message}`);
  if (/RATE_LIMITED/.test(err.message))
    console.error('Registrations per address are limited (REGISTRATIONS_PER_IP_PER_HOUR, 20 by default): wait, or raise it.');
  process.exit(1);
}
