/**
 * Progress of a push or pull on stderr (stdout stays for the summary and --json): a cli-progress
 * bar when stderr is a terminal, else one plain line per step, which logs and CI keep readable.
 */
import cliProgress from 'cli-progress';
import { err, formatBytes } from './context.js';

export interface Progress {
  /** `files` more files (and `bytes`) are done. */
  advance(files: number, bytes: number): void;
  stop(): void;
}

export function startProgress(verb: 'push' | 'pull', totalFiles: number, totalBytes: number): Progress {
  if (totalFiles === 0) return { advance() {}, stop() {} };
  let doneFiles = 0;
  // A pull learns sizes as files arrive: then only the bytes so far are shown.
  const of = (done: number) => (totalBytes > 0 ? `${formatBytes(done)}/${formatBytes(totalBytes)}` : formatBytes(done));
  let doneBytes = 0;
  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        format: `${verb} [{bar}] {percentage}% | {value}/{total} files | {bytes}`,
        stream: process.stderr,
        hideCursor: true,
        clearOnComplete: false,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(totalFiles, 0, { bytes: of(0) });
    return {
      advance(files, bytes) {
        doneFiles += files;
        doneBytes += bytes;
        bar.update(doneFiles, { bytes: of(doneBytes) });
      },
      stop: () => bar.stop(),
    };
  }
  return {
    advance(files, bytes) {
      doneFiles += files;
      doneBytes += bytes;
      err(`${verb}: ${doneFiles}/${totalFiles} files, ${of(doneBytes)}`);
    },
    stop() {},
  };
}
