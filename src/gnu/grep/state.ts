/** grep's state for one run: options, the matcher, output and diagnostics, and the file being searched. */
import { Buffer } from 'node:buffer';
import { type Ctx, type IFileSystem, type Result } from '../kit/command.js';
import { GrepExit, USAGE_TAIL } from './texts.js';
import { type Engine, type Matcher } from './matcher.js';
import { type Options } from './options.js';
import { toRawBytes } from './decode.js';
import { inOrder, OrderedErrors } from '../kit/order.js';

export class GrepState {
  protected readonly out: string[] = [];
  protected outBytes = 0;
  /** Messages, each with its place in the output (for `2>&1`). */
  readonly err = new OrderedErrors(this.out);
  protected errseen = false;
  protected rawOutput = false;
  protected used = false;
  protected readonly maxOutput: number;

  o!: Options;
  protected m!: Matcher;
  /** The engine for the current buffer. */
  protected eng!: Engine;
  eol = '\n';
  protected outQuiet = false;
  protected doneOnMatch = false;
  protected outFile = 0;
  protected omitDotSlash = false;
  stdinUsed = false;

  // per file
  protected text = '';
  protected filename = '';
  protected lastout = -1;
  protected pending = 0;
  protected outleft = 0;
  protected lnPos = 0;
  protected lnCount = 0;
  protected bytePos = 0;
  protected byteIdx = 0;
  protected ascii = true;
  protected encErrors = false;
  protected encodingErrorOutput = false;
  protected offsetWidth = 0;

  readonly fs: IFileSystem;

  constructor(
    readonly ctx: Ctx,
    direct?: IFileSystem,
  ) {
    this.maxOutput = ctx.limits?.maxOutputSize ?? 0;
    this.fs = direct ?? ctx.fs;
  }

  write(s: string): void {
    this.out.push(s);
    this.outBytes += s.length;
  }

  error(msg: string): void {
    this.err.push(`grep: ${msg}\n`);
  }

  protected suppressible(name: string, msg: string): void {
    if (!this.o.suppress) this.error(`${name}: ${msg}`);
    this.errseen = true;
  }

  usageError(msg: string | null): never {
    if (msg !== null) this.error(msg);
    this.err.push(USAGE_TAIL);
    throw new GrepExit(2);
  }

  /**
   * stdout is returned as bytes: that is what grep writes, and just-bash handles byte output
   * much faster than text (it measures text by walking it in JavaScript, several times).
   */
  result(code: number): Result {
    const text = this.out.join('');
    const bytes = (s: string) => (this.rawOutput ? toRawBytes(s) : Buffer.from(s, 'utf8').toString('latin1'));
    const r = { stdout: bytes(text), stderr: this.err.join(''), exitCode: code, stdoutKind: 'bytes', stdoutEncoding: 'binary' } as Result;
    return inOrder(r, () => this.err.chunks(r.stdout, (s) => bytes(s).length));
  }
}
