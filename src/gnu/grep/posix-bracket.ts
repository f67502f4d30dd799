/** grep's POSIX regex translation: bracket expressions (glibc parse_bracket_exp, the DFA's [:space:] check). */
import { Buffer } from 'node:buffer';
import { BADBYTES, esc, posixClass } from './classes.js';
import { Atom, PatternError, PosixLexer } from './posix-lexer.js';

export class PosixBracket extends PosixLexer {
  // ---- bracket expressions (glibc parse_bracket_exp, DFA's [:space:] check) ----

  protected parseBracket(): Atom {
    const cs = this.cs;
    let i = this.i;
    type BTok = { t: 'END' | 'CHAR' | 'RANGE' | 'CLOSE' | 'COLL' | 'EQUIV' | 'CLASS'; c: string; len: number };
    const peekB = (j: number): BTok => {
      if (j >= cs.length) return { t: 'END', c: '', len: 0 };
      const c = cs[j]!;
      if (c === '[') {
        const c2 = cs[j + 1];
        if (c2 === '.') return { t: 'COLL', c: '.', len: 2 };
        if (c2 === '=') return { t: 'EQUIV', c: '=', len: 2 };
        if (c2 === ':') return { t: 'CLASS', c: ':', len: 2 };
        return { t: 'CHAR', c, len: 1 };
      }
      if (c === '-') return { t: 'RANGE', c, len: 1 };
      if (c === ']') return { t: 'CLOSE', c, len: 1 };
      return { t: 'CHAR', c, len: 1 };
    };
    type Elem = { type: 'char' | 'coll' | 'equiv' | 'class'; v: string };
    const parseElem = (tok: BTok, acceptHyphen: boolean): Elem => {
      i += tok.len;
      if (tok.t === 'COLL' || tok.t === 'EQUIV' || tok.t === 'CLASS') {
        let name = '';
        if (i >= cs.length) throw new PatternError('Unmatched [, [^, [:, [., or [=');
        for (;;) {
          if (Buffer.byteLength(name) >= 32) throw new PatternError('Unmatched [, [^, [:, [., or [=');
          const ch = cs[i++]!;
          if (i >= cs.length) throw new PatternError('Unmatched [, [^, [:, [., or [=');
          if (ch === tok.c && cs[i] === ']') break;
          name += ch;
        }
        i++;
        return { type: tok.t === 'COLL' ? 'coll' : tok.t === 'EQUIV' ? 'equiv' : 'class', v: name };
      }
      if (tok.t === 'RANGE' && !acceptHyphen) {
        if (peekB(i).t !== 'CLOSE') throw new PatternError('Invalid range end');
      }
      return { type: 'char', v: tok.c };
    };
    const single = (e: Elem): string => {
      // A collating symbol or equivalence class must name one single-byte character.
      if (e.type !== 'char' && Buffer.byteLength(e.v) !== 1) throw new PatternError('Invalid collation character');
      return e.v;
    };

    let tok = peekB(i);
    if (tok.t === 'END') throw new PatternError('Invalid regular expression');
    let neg = false;
    if (cs[i] === '^') {
      neg = true;
      i++;
      tok = peekB(i);
      if (tok.t === 'END') throw new PatternError('Invalid regular expression');
    }
    if (tok.t === 'CLOSE') tok = { t: 'CHAR', c: ']', len: 1 };
    // The DFA's "[:space:]" check: bit 1 first is ':', 2 last is ':', 4 other chars, 8 ranges/classes.
    let colon = cs[i] === ':' ? 1 : 0;
    const items: string[] = [];
    let complex = false;
    let firstRound = true;
    for (;;) {
      colon &= ~2;
      const start = parseElem(tok, firstRound);
      firstRound = false;
      tok = peekB(i);
      let rangeEnd: Elem | null = null;
      if (start.type !== 'class' && start.type !== 'equiv') {
        if (tok.t === 'END') throw new PatternError('Unmatched [, [^, [:, [., or [=');
        if (tok.t === 'RANGE') {
          const save = i;
          i += tok.len;
          const tok2 = peekB(i);
          if (tok2.t === 'END') throw new PatternError('Unmatched [, [^, [:, [., or [=');
          if (tok2.t === 'CLOSE') {
            i = save;
            tok = { t: 'CHAR', c: '-', len: 1 };
          } else {
            rangeEnd = parseElem(tok2, true);
            tok = peekB(i);
          }
        }
      }
      if (neg || start.type !== 'char' || /[^\x00-\x7f]/.test(start.v)) this.unsupported = true;
      if (start.type === 'class' && start.v === 'digit') this.unsupported = neg || this.unsupported;
      if (rangeEnd) {
        if (!/^[0-9]$/.test(start.v) || !/^[0-9]$/.test(rangeEnd.v)) this.unsupported = true;
        if (rangeEnd.type === 'class' || rangeEnd.type === 'equiv') throw new PatternError('Invalid range end');
        const a = single(start);
        const b = single(rangeEnd);
        // C.UTF-8 has no collation order beyond single bytes: multibyte endpoints are refused.
        if (Buffer.byteLength(a) > 1 || Buffer.byteLength(b) > 1) throw new PatternError('Invalid collation character');
        if (a.codePointAt(0)! > b.codePointAt(0)!) throw new PatternError('Invalid range end');
        items.push(`${esc(a)}-${esc(b)}`);
        complex = true;
        colon |= 8;
      } else if (start.type === 'class') {
        const cls = posixClass(start.v, this.icase);
        if (cls === null) throw new PatternError('Invalid character class name');
        items.push(cls);
        complex = true;
        colon |= 8;
      } else {
        const ch = single(start);
        items.push(esc(ch));
        if (start.type !== 'char') colon |= 8;
        else colon |= ch === ':' ? 2 : 4;
      }
      if (tok.t === 'END') throw new PatternError('Unmatched [, [^, [:, [., or [=');
      if (tok.t === 'CLOSE') break;
    }
    i += 1;
    this.i = i;
    if (colon === 7) this.dfa.push({ error: 'character class syntax is [[:space:]], not [:space:]' });
    this.laststart = false;
    this.fetch();
    const E = esc(this.eol);
    let src: string;
    if (neg) src = `[^${items.join('')}${E}${BADBYTES}]`;
    else if (complex) src = `[[${items.join('')}]--[${E}]]`;
    else src = `[${items.join('')}]`;
    return { src, single: true, lit: null };
  }
}
