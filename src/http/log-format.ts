/**
 * Logs for people: in a terminal, one readable line per request and a start-up banner; JSON
 * lines (pino) everywhere else, for log collectors. The formatter is ours (a few lines, no
 * dependency) and works on pino's JSON lines, so both outputs carry the same facts.
 */
import { Writable } from 'node:stream';
import type { Config } from '../config.js';

export type LogFormat = 'auto' | 'pretty' | 'json';

/** `auto` is readable lines when stdout is a terminal, JSON otherwise. */
export function chooseLogFormat(setting: LogFormat, stdoutIsTty: boolean): 'pretty' | 'json' {
  if (setting === 'auto') return stdoutIsTty ? 'pretty' : 'json';
  return setting;
}

/**
 * API keys never reach a log: a key is `mk_` and 43 letters or digits, and any run of 4 or more
 * after `mk_` (a pasted key, a truncated one, one in a query string) is cut to `mk_…`.
 */
export function scrubKeys(text: string): string {
  // API keys (mk_, base62), link and export tokens (lt_, ex_, base64url): whoever reads a log must not be able to use any.
  return text
    .replace(/mk_[0-9A-Za-z]{4,}/g, 'mk_…')
    .replace(/lt_[0-9A-Za-z_-]{4,}/g, 'lt_…')
    .replace(/ex_[0-9A-Za-z_-]{4,}/g, 'ex_…');
}

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** pino's bookkeeping fields: not worth a reader's attention. */
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'reqId', 'v']);

const paint = (color: boolean, code: number, text: string) => (color ? `\u001b[${code}m${text}\u001b[0m` : text);

/** Local wall-clock time with milliseconds: a terminal is read by someone in their time zone. */
function clock(ms: unknown): string {
  const d = new Date(typeof ms === 'number' ? ms : Date.now());
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

function statusColor(status: number): number {
  if (status >= 500) return 31;
  if (status >= 400) return 33;
  return 32;
}

function value(v: unknown): string {
  if (typeof v === 'string') return /[\s"=]/.test(v) ? JSON.stringify(v) : v;
  return JSON.stringify(v) ?? String(v);
}

/**
 * One pino JSON line → one readable line (more for an error's stack). A request reads
 * `12:00:00.123 POST /api/tools/read 200 3.1 ms`; anything else `time LEVEL message key=value…`.
 * Lines that are not JSON pass through. Keys are scrubbed from whatever comes out.
 */
export function formatLogLine(line: string, opts: { color?: boolean } = {}): string {
  const color = opts.color ?? false;
  let entry: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return scrubKeys(line);
    entry = parsed as Record<string, unknown>;
  } catch {
    return scrubKeys(line);
  }
  const time = paint(color, 2, clock(entry.time));
  if (typeof entry.method === 'string' && typeof entry.url === 'string' && typeof entry.status === 'number') {
    const ms = typeof entry.ms === 'number' ? ` ${entry.ms} ms` : '';
    return scrubKeys(`${time} ${entry.method} ${entry.url} ${paint(color, statusColor(entry.status), String(entry.status))}${ms}`);
  }
  const level = LEVELS[entry.level as number] ?? String(entry.level ?? 'INFO');
  const levelText = paint(color, (entry.level as number) >= 50 ? 31 : (entry.level as number) >= 40 ? 33 : 36, level.padEnd(5));
  const fields: string[] = [];
  let stack = '';
  for (const [k, v] of Object.entries(entry)) {
    if (HIDDEN.has(k)) continue;
    if (k === 'err' && v && typeof v === 'object') {
      const err = v as { type?: string; message?: string; stack?: string };
      fields.push(`err=${value(`${err.type ?? 'Error'}: ${err.message ?? ''}`)}`);
      if (err.stack)
        stack =
          '\n' +
          err.stack
            .split('\n')
            .slice(1)
            .map((l) => `    ${l.trim()}`)
            .join('\n');
      continue;
    }
    fields.push(`${k}=${value(v)}`);
  }
  const msg = typeof entry.msg === 'string' ? entry.msg : '';
  return scrubKeys(`${time} ${levelText} ${msg}${fields.length ? ' ' + fields.join(' ') : ''}${stack}`);
}

/** A stream for pino that writes each JSON line to `out` formatted. */
export function prettyStream(out: NodeJS.WritableStream, opts: { color?: boolean } = {}): Writable {
  let pending = '';
  return new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _enc, done) {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop()!;
      const text = lines
        .filter((l) => l.trim() !== '')
        .map((l) => formatLogLine(l, opts) + '\n')
        .join('');
      if (text) out.write(text);
      done();
    },
    final(done) {
      if (pending.trim()) out.write(formatLogLine(pending, opts) + '\n');
      done();
    },
  });
}

/** Where the data lives, without a password. */
export function dataLocation(config: Pick<Config, 'databaseUrl' | 'dataDir'>, cwd = process.cwd()): string {
  if (config.databaseUrl) {
    try {
      const u = new URL(config.databaseUrl);
      if (u.password) u.password = '***';
      return u.toString();
    } catch {
      return 'PostgreSQL (DATABASE_URL)';
    }
  }
  const dir = config.dataDir.startsWith('/') ? config.dataDir : `${cwd.replace(/\/$/, '')}/${config.dataDir.replace(/^\.\//, '')}`;
  return `${dir.replace(/\/$/, '')}/afs.sqlite`;
}

/** The start-up banner of a terminal run: where it listens, what it stores where, what to try first. */
export function banner(info: { version: string; baseUrl: string; store: string; data: string; workers?: number }): string {
  const { baseUrl } = info;
  return [
    `agent-file-service ${info.version} listening on ${baseUrl}`,
    `  store: ${info.store === 'sqlite' ? 'SQLite' : 'PostgreSQL'} · data: ${scrubKeys(info.data)}${info.workers && info.workers > 1 ? ` · workers: ${info.workers}` : ''}`,
    '',
    '  Try:',
    `    curl -s ${baseUrl}/skill.md`,
    `    curl -s -X POST ${baseUrl}/api/users/register -H 'Content-Type: application/json' -d '{"name": "my-agent"}'`,
    '',
    '  One line per request below (LOG_FORMAT=json for JSON lines). Ctrl-C stops.',
    '',
  ].join('\n');
}
