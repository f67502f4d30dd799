/**
 * GNU getopt_long as glibc 2.36 runs it for coreutils, grep and findutils: options and operands
 * permuted, short options clustered (`-abc`, `-n5`, `-n 5`), long options with `=value` or a
 * separate argument, unambiguous abbreviations (`--colo`), `--` ending the options, and glibc's
 * exact diagnostics. Every GNU command here parses through this file.
 */

export type OptArg = 'none' | 'required' | 'optional';

export interface LongOpt {
  name: string;
  /** What the option sets: its short letter, or a name for long-only options. */
  key: string;
  arg: OptArg;
}

/** Long options from `[name, key, arg?]` rows (arg defaults to 'none'). */
export function longOpts(rows: ReadonlyArray<readonly [string, string, OptArg?]>): LongOpt[] {
  return rows.map(([name, key, arg]) => ({ name, key, arg: arg ?? 'none' }));
}

/** A usage error, worded as glibc words it, without the program name or newline. */
export class GetoptError extends Error {
  constructor(
    message: string,
    /** Raised by a long option (`--x`), not a short one. */
    readonly long: boolean,
  ) {
    super(message);
  }
}

export type Token = { kind: 'option'; key: string; arg: string | undefined; index: number } | { kind: 'operand'; value: string; index: number };

/** The options and operands of `args` in order; throws GetoptError at the first bad option. `short`: letters, ':' after one that takes an argument. */
export function* tokens(args: readonly string[], short: string, longs: readonly LongOpt[]): Generator<Token> {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      for (let k = i + 1; k < args.length; k++) yield { kind: 'operand', value: args[k]!, index: k };
      return;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const l = findLong(a, eq === -1 ? a.slice(2) : a.slice(2, eq), longs);
      if (l.arg === 'none') {
        if (eq !== -1) throw new GetoptError(`option '--${l.name}' doesn't allow an argument`, true);
        yield { kind: 'option', key: l.key, arg: undefined, index: i };
      } else if (eq !== -1) yield { kind: 'option', key: l.key, arg: a.slice(eq + 1), index: i };
      else if (l.arg === 'optional') yield { kind: 'option', key: l.key, arg: undefined, index: i };
      else if (i + 1 < args.length) {
        yield { kind: 'option', key: l.key, arg: args[i + 1]!, index: i };
        i++;
      } else throw new GetoptError(`option '--${l.name}' requires an argument`, true);
      continue;
    }
    if (a.startsWith('-') && a.length > 1) {
      const at = i;
      for (let j = 1; j < a.length; j++) {
        const c = a[j]!;
        const k = c === ':' ? -1 : short.indexOf(c);
        if (k === -1) throw new GetoptError(`invalid option -- '${c}'`, false);
        if (short[k + 1] !== ':') {
          yield { kind: 'option', key: c, arg: undefined, index: at };
          continue;
        }
        if (j + 1 < a.length) yield { kind: 'option', key: c, arg: a.slice(j + 1), index: at };
        else if (i + 1 < args.length) yield { kind: 'option', key: c, arg: args[++i]!, index: at };
        else throw new GetoptError(`option requires an argument -- '${c}'`, false);
        break;
      }
      continue;
    }
    yield { kind: 'operand', value: a, index: i };
  }
}

/**
 * The long option `arg` names: an exact name, else the only option (up to aliases with the same
 * key and argument) the name abbreviates. glibc lists the first candidate and every one that
 * differs from it, so `ls --co` names --color and --context but not --colour.
 */
function findLong(arg: string, name: string, longs: readonly LongOpt[]): LongOpt {
  const exact = longs.find((l) => l.name === name);
  if (exact) return exact;
  const cands = longs.filter((l) => l.name.startsWith(name));
  const first = cands[0];
  if (!first) throw new GetoptError(`unrecognized option '${arg}'`, true);
  const others = cands.filter((c) => c.key !== first.key || c.arg !== first.arg);
  if (others.length > 0) {
    throw new GetoptError(`option '${arg}' is ambiguous; possibilities:${[first, ...others].map((c) => ` '--${c.name}'`).join('')}`, true);
  }
  return first;
}

export interface Parsed {
  opts: Array<[string, string | undefined]>;
  operands: string[];
}

/** All options then all operands; throws GetoptError. */
export function parseOptions(args: readonly string[], short: string, longs: readonly LongOpt[]): Parsed {
  const out: Parsed = { opts: [], operands: [] };
  for (const t of tokens(args, short, longs)) {
    if (t.kind === 'option') out.opts.push([t.key, t.arg]);
    else out.operands.push(t.value);
  }
  return out;
}

/** parseOptions, or the diagnostic line `prog: …\n` a command prints before its "Try …" line. */
export function getopt(prog: string, args: readonly string[], short: string, longs: readonly LongOpt[]): Parsed | { error: string } {
  try {
    return parseOptions(args, short, longs);
  } catch (e) {
    if (e instanceof GetoptError) return { error: `${prog}: ${e.message}\n` };
    throw e;
  }
}

/** GNU's second line after a usage error. */
export const tryHelp = (prog: string): string => `Try '${prog} --help' for more information.\n`;
