// Baseline server for the benchmark: the least work a JSON tool endpoint can
// do on node:http (read body, JSON.parse it, reply with a small JSON envelope
// shaped like a tool reply). Real scenarios are reported as a ratio of this,
// so the numbers say "how much slower than bare Node" rather than depending on
// how fast the benchmark machine is.
import http from 'node:http';

const port = Number(process.env.PORT ?? 0);
const host = process.env.HOST ?? '127.0.0.1';

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/readyz') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let parsed;
    try {
      parsed = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end('{"error":"bad json"}');
      return;
    }
    // Same envelope as a tool reply: the payload is JSON inside a text part.
    const text = JSON.stringify({ ok: true, path: parsed.path ?? null, bytes: parsed.content?.length ?? 0 });
    const body = JSON.stringify({ content: [{ type: 'text', text }] });
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});

// keep-alive longer than the load generator's idle gaps between warm-up and run
server.keepAliveTimeout = 65_000;
server.listen(port, host, () => {
  console.log(`bare server listening on http://${host}:${server.address().port}`);
});

// If the harness dies without killing us, don't linger.
process.on('disconnect', () => process.exit(0));
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(0));
