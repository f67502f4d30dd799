/**
 * A small POSIX tar (ustar + pax) writer and streaming reader: what agent export and import need,
 * no more. Written here rather than taken from npm because the format is small and fixed (a
 * 512-byte header per entry, the data padded to 512, two zero blocks at the end), and the
 * service's paths need only one extension: a pax `path` record for names that do not fit ustar's
 * 100 + 155 bytes (paths are up to 1024 bytes) or are not ASCII. GNU tar and bsdtar read what
 * this writes (test/export-import.test.ts lists an export with `tar -tvf`).
 *
 * Memory: the writer emits each entry as header + data + padding (the caller hands it one entry
 * at a time); the reader holds one entry's data at a time, refusing any entry larger than the
 * caller's bound before reading it.
 */
const BLOCK = 512;
const ZERO_BLOCK = Buffer.alloc(BLOCK);

export interface TarEntry {
  name: string;
  type: 'file' | 'directory';
  /**
   * Written in whole seconds: exact times live in the archive's history, and a pax mtime record
   * per entry would add 1 KiB to each (measured: +30% on an archive of small files).
   */
  mtimeMs: number;
  mode?: number;
}

export class TarError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TarError';
  }
}

function octal(value: number, width: number): string {
  // width - 1 digits and a NUL terminator, zero-padded, as GNU tar writes them.
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

function writeString(buf: Buffer, offset: number, width: number, value: string): void {
  buf.write(value, offset, width, 'utf8');
}

/** One pax record: "<len> key=value\n", where len counts the whole record including itself. */
function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let len = Buffer.byteLength(body) + 1;
  while (String(len).length + Buffer.byteLength(body) !== len) len = String(len).length + Buffer.byteLength(body);
  return `${len}${body}`;
}

/** Splits a name into ustar's prefix and name fields at a '/', or null when it cannot fit. */
function ustarSplit(name: string): { prefix: string; name: string } | null {
  if (!/^[\x20-\x7e]*$/.test(name)) return null; // non-ASCII: a pax record carries it exactly
  if (name.length <= 100) return { prefix: '', name };
  for (let i = name.indexOf('/'); i !== -1; i = name.indexOf('/', i + 1)) {
    if (i <= 155 && name.length - i - 1 <= 100 && name.length - i - 1 > 0) return { prefix: name.slice(0, i), name: name.slice(i + 1) };
  }
  return null;
}

function header(fields: { name: string; prefix: string; size: number; mtimeS: number; typeflag: string; mode: number }): Buffer {
  const h = Buffer.alloc(BLOCK);
  writeString(h, 0, 100, fields.name);
  writeString(h, 100, 8, octal(fields.mode, 8));
  writeString(h, 108, 8, octal(0, 8)); // uid
  writeString(h, 116, 8, octal(0, 8)); // gid
  writeString(h, 124, 12, octal(fields.size, 12));
  writeString(h, 136, 12, octal(Math.max(0, Math.floor(fields.mtimeS)), 12));
  h.fill(0x20, 148, 156); // checksum field counts as spaces while summing
  writeString(h, 156, 1, fields.typeflag);
  writeString(h, 257, 6, 'ustar\0');
  writeString(h, 263, 2, '00');
  writeString(h, 265, 32, 'afs');
  writeString(h, 297, 32, 'afs');
  writeString(h, 345, 155, fields.prefix);
  let sum = 0;
  for (const b of h) sum += b;
  writeString(h, 148, 8, sum.toString(8).padStart(6, '0') + '\0 ');
  return h;
}

const padding = (size: number) => (size % BLOCK === 0 ? Buffer.alloc(0) : Buffer.alloc(BLOCK - (size % BLOCK)));

/** The ustar limit on one entry's size (11 octal digits); the archive bound keeps far below it. */
const MAX_USTAR_SIZE = 8 ** 11 - 1;

/** The bytes of one entry: [pax header + its data], header, data, padding. */
export function tarEntry(entry: TarEntry, data: Buffer = Buffer.alloc(0)): Buffer[] {
  if (data.length > MAX_USTAR_SIZE) throw new TarError(`entry ${entry.name} is over 8 GiB`);
  const isDir = entry.type === 'directory';
  const name = isDir && !entry.name.endsWith('/') ? `${entry.name}/` : entry.name;
  const mtimeS = entry.mtimeMs / 1000;
  const mode = entry.mode ?? (isDir ? 0o755 : 0o644);
  const out: Buffer[] = [];
  const split = ustarSplit(name);
  const pax: string[] = [];
  if (!split) pax.push(paxRecord('path', name));
  if (pax.length) {
    const body = Buffer.from(pax.join(''), 'utf8');
    // The pax header's own name is informational; readers take the path from its records.
    out.push(header({ name: 'PaxHeader', prefix: '', size: body.length, mtimeS, typeflag: 'x', mode: 0o644 }), body, padding(body.length));
  }
  const fit = split ?? {
    prefix: '',
    name: Buffer.from(name)
      .subarray(0, 100)
      .toString('latin1')
      .replace(/[^\x20-\x7e]/g, '_'),
  };
  out.push(header({ ...fit, size: isDir ? 0 : data.length, mtimeS, typeflag: isDir ? '5' : '0', mode }));
  if (!isDir && data.length) out.push(data, padding(data.length));
  return out;
}

/** The end of an archive: two zero blocks. */
export const tarEnd = (): Buffer => Buffer.alloc(BLOCK * 2);

export interface ReadEntry {
  name: string;
  type: 'file' | 'directory' | 'other';
  size: number;
  mtimeMs: number;
  data: Buffer;
}

function parseOctal(buf: Buffer, offset: number, width: number, what: string): number {
  const text = buf
    .subarray(offset, offset + width)
    .toString('latin1')
    .replace(/[\0 ]+$/g, '')
    .trim();
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) throw new TarError(`bad ${what} field in a tar header: ${JSON.stringify(text)}`);
  return parseInt(text, 8);
}

function cString(buf: Buffer, offset: number, width: number): string {
  const field = buf.subarray(offset, offset + width);
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? width : end).toString('utf8');
}

function parsePax(data: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    if (space === -1) break;
    const len = Number(data.subarray(at, space).toString('latin1'));
    if (!Number.isInteger(len) || len <= 0 || at + len > data.length) throw new TarError('bad pax record');
    const record = data.subarray(space + 1, at + len - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (eq > 0) out.set(record.slice(0, eq), record.slice(eq + 1));
    at += len;
  }
  return out;
}

/** Accumulates chunks and hands out exact byte counts (a stream's chunks have arbitrary bounds). */
class ByteQueue {
  private chunks: Buffer[] = [];
  private length = 0;
  constructor(private readonly source: AsyncIterator<Buffer | string>) {}

  /** Exactly n bytes, or fewer only at the end of the source. */
  async take(n: number): Promise<Buffer> {
    while (this.length < n) {
      const next = await this.source.next();
      if (next.done) break;
      const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
      this.chunks.push(chunk);
      this.length += chunk.length;
    }
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    const out = all.subarray(0, Math.min(n, all.length));
    const rest = all.subarray(out.length);
    this.chunks = rest.length ? [rest] : [];
    this.length = rest.length;
    return out;
  }
}

/**
 * Reads entries one at a time from a byte stream. `maxEntryBytes` bounds one entry's data (it is
 * held in memory): a larger one stops the read with a TarError before any of it is buffered.
 * A stream that ends without the two zero blocks is truncated: a TarError says so.
 */
export async function* readTar(source: AsyncIterable<Buffer | string>, maxEntryBytes: number): AsyncGenerator<ReadEntry> {
  const q = new ByteQueue(source[Symbol.asyncIterator]());
  let pax: Map<string, string> | null = null;
  for (;;) {
    // A copy: the checksum is verified by blanking its field, and the source's buffers are not ours to change.
    const h = Buffer.from(await q.take(BLOCK));
    if (h.length < BLOCK) throw new TarError('the archive is truncated (it ends without the end-of-archive blocks); download it again.');
    if (h.equals(ZERO_BLOCK)) return;
    const stored = parseOctal(h, 148, 8, 'checksum');
    h.fill(0x20, 148, 156);
    let sum = 0;
    for (const b of h) sum += b;
    if (sum !== stored) throw new TarError('a tar header checksum does not match: the archive is damaged.');
    const size = parseOctal(h, 124, 12, 'size');
    const typeflag = String.fromCharCode(h[156]!);
    if (size > maxEntryBytes) throw new TarError(`an entry of ${size} bytes is over the ${maxEntryBytes}-byte limit of one entry.`);
    const data = await q.take(size);
    if (data.length < size) throw new TarError('the archive is truncated inside an entry; download it again.');
    const pad = (BLOCK - (size % BLOCK)) % BLOCK;
    if (pad && (await q.take(pad)).length < pad) throw new TarError('the archive is truncated; download it again.');
    if (typeflag === 'x') {
      pax = parsePax(data);
      continue;
    }
    if (typeflag === 'g') continue;
    const prefix = cString(h, 345, 155);
    let name = prefix ? `${prefix}/${cString(h, 0, 100)}` : cString(h, 0, 100);
    let mtimeMs = parseOctal(h, 136, 12, 'mtime') * 1000;
    if (pax) {
      name = pax.get('path') ?? name;
      const m = Number(pax.get('mtime'));
      if (Number.isFinite(m)) mtimeMs = Math.round(m * 1000);
      pax = null;
    }
    const type = typeflag === '0' || typeflag === '\0' ? 'file' : typeflag === '5' ? 'directory' : 'other';
    yield { name: type === 'directory' ? name.replace(/\/$/, '') : name, type, size, mtimeMs, data };
  }
}
