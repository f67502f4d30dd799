/**
 * GNU `ls` (coreutils 9.1) for the bash tool, as it behaves with LC_ALL=C (byte-order sorting)
 * and TZ=UTC when stdout is not a terminal (always the case here): one name per line unless a
 * layout is asked for (-l, -C, -x, -m), names printed literally.
 *
 * Operands: files first (sorted like the listing), then each directory as a `dir:` block when
 * there is more than one operand (or -R), blocks separated by one blank line; a missing operand
 * is reported (`ls: cannot access 'x': No such file or directory`, exit 2). Sorting: name (byte
 * order), -t (newest first, ties by name), -S (largest first, ties by name), -U/-f (store
 * order), -X (extension), -v (version), all reversed by -r; --group-directories-first.
 *
 * Long format: `total N` in 1 KiB blocks, GNU column widths (widest value per column), dates
 * `Mon DD HH:MM` within six months of now else `Mon DD  YYYY`, in UTC.

 * The values shown for what the store has no notion of (blocks, owner, inode…): kit/file-info.ts.
 */

import { defineCommand, type Ctx, type CustomCommand, type FsStat, type IFileSystem, type Result } from '../kit/command.js';
import { errnoMessage } from '../kit/errno.js';
import { errorsFirst } from '../kit/order.js';
import { fnmatch } from '../kit/fnmatch.js';
import { shellQuote } from '../kit/quote.js';
import { humanSize, isMountPoint, kib } from '../kit/file-info.js';
import { parseLs, type Ent, type LsExit } from './options.js';
import { formatEnts, sortEnts } from './format.js';

async function tryStat(fs: IFileSystem, path: string): Promise<FsStat | null> {
  try {
    return await fs.stat(path);
  } catch {
    return null;
  }
}

function joinName(dir: string, name: string): string {
  return dir.endsWith('/') ? dir + name : dir + '/' + name;
}

type Parsed = Exclude<ReturnType<typeof parseLs>, LsExit>;

/** One listing: its output chunks, errors, and whether a directory block is the first printed. */
class LsRun {
  readonly chunks: string[] = [];
  stderr = '';
  /** An error while listing (not an operand's): its place among the output is stdio's to decide. */
  listingErrors = false;
  exitCode = 0;
  first = true;
  printDirName = true;
  /** The job's own filesystem (it answers isMountPoint; ctx.fs is a membrane that does not). */
  mountFs: IFileSystem | undefined;
  private readonly now = Date.now();
  constructor(
    private readonly fs: IFileSystem,
    private readonly o: Parsed,
  ) {}

  private visible(name: string): boolean {
    const o = this.o;
    if (!o.all && !o.almostAll && name.startsWith('.')) return false;
    if (o.ignoreBackups && name.endsWith('~')) return false;
    if (o.ignore.some((g) => fnmatch(g, name))) return false;
    if (!o.all && !o.almostAll && o.hide.some((g) => fnmatch(g, name))) return false;
    return true;
  }

  /** The content of a directory as entries (with . and .. under -a). */
  private async listDir(path: string): Promise<Ent[]> {
    const fs = this.fs;
    const kids = await fs.readdirWithFileTypes!(path);
    const ents: Ent[] = [];
    if (this.o.all) {
      const self = await fs.stat(path);
      const parentPath = path === '/' ? '/' : path.replace(/\/[^/]+\/?$/, '') || '/';
      const parent = (await tryStat(fs, parentPath)) ?? self;
      ents.push({ name: '.', path, st: self }, { name: '..', path: parentPath, st: parent });
    }
    const shown = kids.filter((k) => this.visible(k.name));
    const stats = await Promise.all(shown.map((k) => tryStat(fs, joinName(path, k.name))));
    shown.forEach((k, i) => {
      const st = stats[i];
      if (st) ents.push({ name: k.name, path: joinName(path, k.name), st });
    });
    return ents;
  }

  format(ents: Ent[]): Promise<string> {
    return formatEnts(ents, this.o, this.fs, this.now);
  }

  /** GNU print_dir: header, total, entries; then (with -R) the subdirectories, depth first. */
  async printDir(name: string, path: string, nested = false): Promise<void> {
    const o = this.o;
    let ents: Ent[];
    try {
      // A mount point reached by -R is shown as an empty directory: the walk does not enter it.
      ents = nested && isMountPoint(this.mountFs ?? this.fs, path) ? [] : sortEnts(await this.listDir(path), o);
    } catch (err) {
      this.stderr += `ls: cannot open directory ${shellQuote(name)}: ${errnoMessage(err)}\n`;
      this.exitCode = 2;
      this.listingErrors = true;
      return;
    }
    let out = '';
    if (o.recursive || this.printDirName) {
      if (!this.first) out += '\n';
      out += `${name}:\n`;
    }
    this.first = false;
    if (o.format === 'long' || o.size) {
      const total = ents.reduce((s, e) => s + kib(e.st), 0);
      out += `total ${o.human ? humanSize(total * 1024) : total}\n`;
    }
    out += await this.format(ents);
    this.chunks.push(out);
    if (!o.recursive) return;
    for (const e of ents) {
      if (!e.st.isDirectory || e.name === '.' || e.name === '..') continue;
      await this.printDir(joinName(name, e.name), e.path, true);
    }
  }

  /** The operands that exist, split into files and directories to list; the others reported. */
  async operands(cwd: string, targets: string[]): Promise<{ files: Ent[]; dirs: Ent[] }> {
    const files: Ent[] = [];
    const dirs: Ent[] = [];
    for (const op of targets) {
      const path = this.fs.resolvePath(cwd, op);
      const st = await tryStat(this.fs, path);
      if (!st || (op.endsWith('/') && !st.isDirectory)) {
        this.stderr += `ls: cannot access ${shellQuote(op)}: ${st ? 'Not a directory' : 'No such file or directory'}\n`;
        this.exitCode = 2;
        continue;
      }
      const e = { name: op, path, st };
      if (st.isDirectory && !this.o.directory) dirs.push(e);
      else files.push(e);
    }
    return { files: sortEnts(files, this.o), dirs: sortEnts(dirs, this.o) };
  }
}

export function lsCommand(direct?: () => IFileSystem): CustomCommand {
  return defineCommand('ls', async (args, ctx: Ctx): Promise<Result> => {
    const parsed = parseLs(args);
    if ('error' in parsed) return { stdout: parsed.stdout ?? '', stderr: parsed.error, exitCode: parsed.code };
    const run = new LsRun(ctx.fs, parsed);
    run.mountFs = direct?.();
    const targets = parsed.operands.length ? parsed.operands : ['.'];
    const { files, dirs } = await run.operands(ctx.cwd, targets);
    if (files.length) {
      run.chunks.push(await run.format(files));
      run.first = false;
    } else if (targets.length <= 1 && dirs.length === 1) run.printDirName = false;
    for (const d of dirs) await run.printDir(d.name, d.path);
    const r: Result = { stdout: run.chunks.join(''), stderr: run.stderr, exitCode: run.exitCode };
    // GNU ls reports the operands it cannot access before it lists anything (`ls nosuch docs 2>&1`).
    return run.listingErrors ? r : errorsFirst(r);
  });
}
