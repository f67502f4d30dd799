/**
 * awk: just-bash's awk with POSIX's bare `length` (no parentheses: the length of $0). just-bash
 * reads a bare `length` as an unset variable, so `awk 'length > 80'` (the classic "long lines")
 * printed nothing and `{print length}` printed empty lines. The program text is rewritten
 * (`length` → `length($0)` where no `(` follows) by a small lexer that leaves strings, regular
 * expressions and comments alone, then the original awk runs.
 */
import { defineCommand, type CustomCommand, type Ctx } from '../kit/command.js';

/** Words after which a `/` starts a regular expression rather than a division. */
const REGEX_AFTER_WORD = new Set(['print', 'printf', 'return', 'in', 'case', 'do', 'else']);

/** The program with every bare `length` written `length($0)`; everything else byte for byte. */
export function expandBareLength(program: string): string {
  let out = '';
  let i = 0;
  const n = program.length;
  // Whether the last token ends an operand (then `/` divides) or not (then `/` opens a regex).
  let afterOperand = false;
  while (i < n) {
    const c = program[i]!;
    if (c === '#') {
      const end = program.indexOf('\n', i);
      const j = end === -1 ? n : end;
      out += program.slice(i, j);
      i = j;
    } else if (c === '"') {
      let j = i + 1;
      while (j < n && program[j] !== '"') j += program[j] === '\\' ? 2 : 1;
      j = Math.min(j + 1, n);
      out += program.slice(i, j);
      i = j;
      afterOperand = true;
    } else if (c === '/' && !afterOperand) {
      let j = i + 1;
      let inBracket = false;
      while (j < n && program[j] !== '\n') {
        const d = program[j]!;
        if (d === '\\') {
          j += 2;
          continue;
        }
        if (inBracket) {
          if (d === ']') inBracket = false;
        } else if (d === '[') {
          inBracket = true;
          if (program[j + 1] === ']') j++; // `[]...]`: a leading ] is literal
        } else if (d === '/') {
          break;
        }
        j++;
      }
      j = Math.min(j + 1, n);
      out += program.slice(i, j);
      i = j;
      afterOperand = true;
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < n && /\w/.test(program[j]!)) j++;
      const word = program.slice(i, j);
      let k = j;
      while (k < n && (program[k] === ' ' || program[k] === '\t')) k++;
      out += word === 'length' && program[k] !== '(' ? 'length($0)' : word;
      i = j;
      afterOperand = !REGEX_AFTER_WORD.has(word);
    } else if (/[0-9.]/.test(c)) {
      let j = i + 1;
      while (j < n && /[0-9.eE]/.test(program[j]!)) j++;
      out += program.slice(i, j);
      i = j;
      afterOperand = true;
    } else {
      out += c;
      i++;
      if (c === ')' || c === ']') afterOperand = true;
      else if (c !== ' ' && c !== '\t' && c !== '\\') afterOperand = false; // newline and operators
    }
  }
  return out;
}

/** Index of the program text among awk's arguments, or -1 (given with -f, or missing). */
export function programIndex(args: string[]): number {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return i + 1 < args.length ? i + 1 : -1;
    if (a === '-f' || a.startsWith('-f') || a === '--file' || a.startsWith('--file=')) return -1;
    if (a === '-F' || a === '-v') {
      i++;
      continue;
    }
    if (a.startsWith('-') && a !== '-') continue; // -F: -vx=1 --posix …
    return i;
  }
  return -1;
}

export function awkCommand(): CustomCommand {
  return defineCommand('awk', async (args, ctx: Ctx) => {
    const at = programIndex(args);
    if (at === -1 || !args[at]!.includes('length')) return ctx.origCommand!(args);
    const rewritten = [...args];
    rewritten[at] = expandBareLength(args[at]!);
    return ctx.origCommand!(rewritten);
  });
}
