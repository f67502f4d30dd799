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
import { fnmatch } from '../kit/fnmatch.js';
import { shellQuote } from '../kit/quote.js';
import { humanSize, kib } from '../kit/file-info.js';
import { parseLs, type Ent } from './options.js';
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

export function lsCommand(): CustomCommand {
  return defineCommand('ls', async (args, ctx: Ctx): Promise<Result> => {
    const parsed = parseLs(args);
    if ('error' in parsed) return { stdout: parsed.stdout ?? '', stderr: parsed.error, exitCode: parsed.code };
    const o = parsed;
    const operands = o.operands;
    const fs = ctx.fs;
    const now = Date.now();
    let stderr = '';
    let exitCode = 0;
    const chunks: string[] = [];

    const visible = (name: string) => {
      if (!o.all && !o.almostAll && name.startsWith('.')) return false;
      if (o.ignoreBackups && name.endsWith('~')) return false;
      if (o.ignore.some((g) => fnmatch(g, name))) return false;
      if (!o.all && !o.almostAll && o.hide.some((g) => fnmatch(g, name))) return false;
      return true;
    };

    /** The content of a directory as entries (with . and .. under -a). */
    const listDir = async (path: string): Promise<Ent[]> => {
      const kids = await fs.readdirWithFileTypes!(path);
      const ents: Ent[] = [];
      if (o.all) {
        const self = await fs.stat(path);
        const parentPath = path === '/' ? '/' : path.replace(/\/[^/]+\/?$/, '') || '/';
        const parent = (await tryStat(fs, parentPath)) ?? self;
        ents.push({ name: '.', path, st: self }, { name: '..', path: parentPath, st: parent });
      }
      const shown = kids.filter((k) => visible(k.name));
      const stats = await Promise.all(shown.map((k) => tryStat(fs, joinName(path, k.name))));
      shown.forEach((k, i) => {
        const st = stats[i];
        if (st) ents.push({ name: k.name, path: joinName(path, k.name), st });
      });
      return ents;
    };

    /** GNU print_dir: header, total, entries; then (with -R) the subdirectories, depth first. */
    let first = true;
    let printDirName = true;
    const printDir = async (name: string, path: string): Promise<void> => {
      let ents: Ent[];
      try {
        ents = sortEnts(await listDir(path), o);
      } catch (err) {
        stderr += `ls: cannot open directory ${shellQuote(name)}: ${errnoMessage(err)}\n`;
        exitCode = 2;
        return;
      }
      let out = '';
      if (o.recursive || printDirName) {
        if (!first) out += '\n';
        out += `${name}:\n`;
      }
      first = false;
      if (o.format === 'long' || o.size) {
        const total = ents.reduce((s, e) => s + kib(e.st), 0);
        out += `total ${o.human ? humanSize(total * 1024) : total}\n`;
      }
      out += await formatEnts(ents, o, fs, now);
      chunks.push(out);
      if (o.recursive) {
        for (const e of ents) {
          if (!e.st.isDirectory || e.name === '.' || e.name === '..') continue;
          await printDir(joinName(name, e.name), e.path);
        }
      }
    };

    const targets = operands.length ? operands : ['.'];
    const files: Ent[] = [];
    const dirs: Ent[] = [];
    for (const op of targets) {
      const path = fs.resolvePath(ctx.cwd, op);
      const st = await tryStat(fs, path);
      if (!st) {
        stderr += `ls: cannot access ${shellQuote(op)}: No such file or directory\n`;
        exitCode = 2;
        continue;
      }
      if (op.endsWith('/') && !st.isDirectory) {
        stderr += `ls: cannot access ${shellQuote(op)}: Not a directory\n`;
        exitCode = 2;
        continue;
      }
      const e = { name: op, path, st };
      if (st.isDirectory && !o.directory) dirs.push(e);
      else files.push(e);
    }
    const sortedFiles = sortEnts(files, o);
    const sortedDirs = sortEnts(dirs, o);
    if (sortedFiles.length) {
      chunks.push(await formatEnts(sortedFiles, o, fs, now));
      first = false;
    } else if (targets.length <= 1 && sortedDirs.length === 1) printDirName = false;
    for (const d of sortedDirs) await printDir(d.name, d.path);
    return { stdout: chunks.join(''), stderr, exitCode };
  });
}
