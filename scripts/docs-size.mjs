#!/usr/bin/env node
// npm run docs:size: what an agent reads, measured on a running server (AFS_BASE_URL, default
// http://127.0.0.1:3000): skill.md, each family page, heartbeat.md, openapi.json, MCP tools/list
// (the default core set, every set, every set with output schemas) with a full and a read-only key
// (a throwaway agent is registered for them), against the budgets.
const base = (process.env.AFS_BASE_URL ?? 'http://127.0.0.1:3000').replace(/\/$/, '');
const KB = 1024;
const rows = [];
const size = async (path, budget) => {
  const r = await fetch(`${base}${path}`);
  if (!r.ok) throw new Error(`GET ${path}: HTTP ${r.status}`);
  rows.push([path, Buffer.byteLength(await r.text()), budget]);
};
const skill = await (await fetch(`${base}/skill.json`)).json();
await size('/skill.md', 32 * KB);
for (const name of Object.keys(skill.files).filter((n) => n.startsWith('skill/'))) await size(`/${name}`, 40 * KB);
await size('/heartbeat.md', 6 * KB);
await size('/openapi.json', null);

async function toolsList(key, query = '') {
  const r = await fetch(`${base}/mcp${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  return Buffer.byteLength(await r.text());
}
const reg = await fetch(`${base}/api/users/register`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ name: `docs-size-${Date.now()}` }),
});
if (reg.ok) {
  const { apiKey } = await reg.json();
  rows.push(['MCP tools/list (full key, core)', await toolsList(apiKey), 15 * KB]);
  rows.push(['MCP tools/list (full key, ?toolsets=all)', await toolsList(apiKey, '?toolsets=all'), 60 * KB]);
  rows.push(['MCP tools/list (full key, all + outputSchemas)', await toolsList(apiKey, '?toolsets=all&outputSchemas=true'), null]);
  const ro = await fetch(`${base}/api/tools/create_key`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ label: 'docs-size', preset: 'read-only' }),
  });
  const roKey = JSON.parse((await ro.json()).content[0].text).apiKey;
  if (roKey) rows.push(['MCP tools/list (read-only key, core)', await toolsList(roKey), null]);
  if (roKey) rows.push(['MCP tools/list (read-only key, all)', await toolsList(roKey, '?toolsets=all'), null]);
} else {
  console.error(`register: HTTP ${reg.status}: the MCP rows are left out`);
}
const width = Math.max(...rows.map(([n]) => n.length));
console.log(`${'what an agent reads'.padEnd(width)}  ${'bytes'.padStart(8)}  ${'KB'.padStart(6)}  budget`);
let over = 0;
for (const [name, bytes, budget] of rows) {
  const flag = budget === null ? '—' : bytes <= budget ? `≤ ${budget / KB} KB` : `OVER ${budget / KB} KB`;
  if (budget !== null && bytes > budget) over++;
  console.log(`${name.padEnd(width)}  ${String(bytes).padStart(8)}  ${(bytes / KB).toFixed(1).padStart(6)}  ${flag}`);
}
process.exitCode = over ? 1 : 0;
