/**
 * `npm run import-agent -- <archive | export URL> [--name <name>]`: restores an agent archive made
 * by export_my_data into this deployment's store (DATABASE_URL or DATA_DIR, as the server reads
 * them), with its whole history, as a new agent with a new full-access key, printed once.
 * Safe while servers run on the same database: nothing of the agent is visible until the end.
 */
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { ConfigError, loadConfig } from './config.js';
import { TarError } from './core/tar.js';
import { openStore } from './store/open.js';
import { ImportError, importArchive } from './transfer/import.js';

const USAGE = 'Usage: npm run import-agent -- <archive.tar | https://…/exports/ex_…> [--name <agent name>]';

function parseArgs(argv: string[]): { source: string; name?: string } {
  let source: string | undefined;
  let name: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--name') {
      name = argv[++i];
      if (name === undefined) throw new ImportError(`--name needs a value. ${USAGE}`);
    } else if (a.startsWith('--name=')) name = a.slice('--name='.length);
    else if (a.startsWith('-') && a !== '-') throw new ImportError(`Unknown option ${a}. ${USAGE}`);
    else if (source === undefined) source = a;
    else throw new ImportError(`One archive at a time. ${USAGE}`);
  }
  if (!source) throw new ImportError(USAGE);
  return { source, ...(name !== undefined ? { name } : {}) };
}

async function open(source: string): Promise<AsyncIterable<Buffer>> {
  if (source === '-') return process.stdin;
  if (/^https?:\/\//.test(source)) {
    const res = await fetch(source);
    if (!res.ok || !res.body)
      throw new ImportError(`GET ${source.replace(/ex_[\w-]+/, 'ex_…')} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    return Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>);
  }
  return createReadStream(source, { highWaterMark: 1024 * 1024 });
}

let code = 0;
try {
  const args = parseArgs(process.argv.slice(2));
  const config = loadConfig();
  const store = openStore(config);
  try {
    await store.migrate();
    const started = performance.now();
    const r = await importArchive(store, await open(args.source), args.name !== undefined ? { name: args.name } : {});
    const s = ((performance.now() - started) / 1000).toFixed(1);
    process.stdout.write(
      `imported ${r.source.slug} (${r.source.id}) as ${r.agent.slug} (${r.agent.id}) into ${store.kind} in ${s} s: ` +
        `${r.counts.changesets} changesets, ${r.counts.versions} versions, ${r.counts.contents} contents (${r.counts.contentBytes} bytes), ` +
        `${r.counts.treeFiles} files in the tree${r.renamedChangesets ? '; changeset ids were renamed (this database had them)' : ''}\n` +
        `apiKey: ${r.apiKey}\nSave apiKey now: it is shown only once (the archive's keys are not restored, only listed in it).\n`,
    );
  } finally {
    await store.close();
  }
} catch (err) {
  if (err instanceof ImportError || err instanceof TarError || err instanceof ConfigError) {
    process.stderr.write(`import-agent: ${err.message}\n`);
    code = err instanceof ConfigError ? 2 : 1;
  } else {
    process.stderr.write(`import-agent: ${(err as Error).stack ?? String(err)}\n`);
    code = 1;
  }
}
process.exit(code);
