/**
 * The inputs of a filter (`cat a - b`): files by name, `-` for standard input, read as byte
 * strings, with the errno code GNU reports for each one that cannot be read.
 */
import { Buffer } from 'node:buffer';
import { latin1FromBytes, type Ctx } from './command.js';
import { ERRNO_TEXT, errnoCode } from './errno.js';
import { OrderedErrors } from './order.js';

export type InputError = 'ENOENT' | 'EISDIR' | 'EACCES' | 'ENOTDIR';
export type Input = { ok: true; bytes: string } | { ok: false; code: InputError; text: string };

function inputError(e: unknown): InputError {
  const code = errnoCode(e);
  return code === 'EISDIR' || code === 'EACCES' || code === 'ENOTDIR' ? code : 'ENOENT';
}

const failed = (code: InputError): Input => ({ ok: false, code, text: ERRNO_TEXT[code]! });

/** One command's inputs. Stdin is consumed once (a second `-` reads nothing, as GNU at EOF). */
export class Inputs {
  private stdinUsed = false;
  constructor(private readonly ctx: Ctx) {}

  stdin(): string {
    if (this.stdinUsed) return '';
    this.stdinUsed = true;
    return latin1FromBytes(this.ctx.stdin);
  }

  async isDir(name: string): Promise<boolean> {
    try {
      return (await this.ctx.fs.stat(this.ctx.fs.resolvePath(this.ctx.cwd, name))).isDirectory;
    } catch {
      return false;
    }
  }

  /** Opens then reads: 'open' errors (missing) vs 'read' errors (directory) as GNU tells them apart. */
  async read(name: string): Promise<Input> {
    if (name === '-') return { ok: true, bytes: this.stdin() };
    const p = this.ctx.fs.resolvePath(this.ctx.cwd, name);
    try {
      if ((await this.ctx.fs.stat(p)).isDirectory) return failed('EISDIR');
    } catch (e) {
      return failed(inputError(e));
    }
    try {
      const buf = await this.ctx.fs.readFileBuffer(p);
      return { ok: true, bytes: Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength).toString('latin1') };
    } catch (e) {
      return failed(inputError(e));
    }
  }
}

export type InputFailure = Extract<Input, { ok: false }>;

/** What a filter has to say after its inputs: its error messages and its exit status. */
export interface InputsReport {
  stderr: string;
  exitCode: number;
  /** The messages with their places in the output (kit/order.ts), for `2>&1`. */
  errors: OrderedErrors;
}

/**
 * A filter's loop over its inputs, in order: `each` is given the bytes of each readable one,
 * `failed` words the message for one that is not (and the exit status becomes 1), and the loop
 * goes on to the next, as coreutils' filters do. `out` is the array the filter writes its output
 * into: each message's place in it is kept (report.errors).
 */
export async function eachInput(
  io: Inputs,
  names: readonly string[],
  failed: (name: string, inp: InputFailure) => string,
  each: (bytes: string, name: string) => void,
  out: readonly string[] = [],
): Promise<InputsReport> {
  const report: InputsReport = { stderr: '', exitCode: 0, errors: new OrderedErrors(out) };
  for (const name of names) {
    const inp = await io.read(name);
    if (inp.ok) each(inp.bytes, name);
    else {
      const message = failed(name, inp);
      report.errors.push(message);
      report.stderr += message;
      report.exitCode = 1;
    }
  }
  return report;
}
