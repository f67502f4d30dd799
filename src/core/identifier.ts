/**
 * The one rule for client text that becomes an identifier or is shown to other agents: agent
 * names (registration), key labels, idempotency keys and the names of new files and
 * directories. Such text must be valid Unicode and must look like what it is: no control
 * characters, no line breaks, nothing invisible and nothing that reorders the display.
 *
 * Refused (with the offending code point):
 * - unpaired UTF-16 surrogates: not Unicode, so not UTF-8; PostgreSQL would store U+FFFD and
 *   SQLite mangled bytes, a different value from the one echoed back;
 * - control characters (Cc) and line/paragraph separators (U+2028, U+2029);
 * - bidirectional controls (U+061C, U+200E/F, U+202A–E, U+2066–9): "abc\u202Etxt.exe" lists
 *   as "abcexe.txt";
 * - invisible characters (Default_Ignorable_Code_Point and other format characters, Cf): a
 *   zero-width space makes "report" and "re\u200Bport" two names that look the same.
 * Kept, because ordinary text needs them, but only where they have a visible effect:
 * - U+200C/U+200D (zero-width non-joiner/joiner) between two letters or marks of a script that
 *   uses them (Persian "می‌خواهم", Devanagari conjuncts), and U+200D inside emoji sequences
 *   (👩‍💻); never at an end, never between Latin, Greek or Cyrillic letters;
 * - variation selectors right after a visible character (❤️, CJK variants);
 * - tag characters inside an emoji tag sequence (the flag of Scotland).
 * Everything else (accents, CJK, emoji, Arabic and Hebrew letters, spaces) is left alone.
 * One pass over the code points with a look at each one's neighbours: linear in the length.
 */

export interface TextProblem {
  /** The offending code point, e.g. 'U+202E'. */
  codePoint: string;
  /** Its position (UTF-16 code units) in the text. */
  index: number;
  /** Starts with an article, so callers can write `contains ${reason}`. */
  reason: string;
}

const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
const SEPARATOR = /[\u2028\u2029]/;
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}]/u;
const VARIATION_SELECTOR = /[\u180B-\u180D\u180F\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/u;
const TAG = /[\u{E0020}-\u{E007F}]/u;
const BLACK_FLAG = 0x1f3f4;
/** What may come right before a variation selector: a visible character. */
const VISIBLE_BASE = /[\p{L}\p{M}\p{N}\p{P}\p{S}]/u;
const EMOJI = /[\p{Extended_Pictographic}\p{Emoji_Modifier}\uFE0F\u20E3]/u;
const LETTER_OR_MARK = /[\p{L}\p{M}]/u;
/** Scripts in which a joiner between letters changes nothing visible (so only spoofs). */
const NO_JOINER_SCRIPT =
  /[\p{Script_Extensions=Latin}\p{Script_Extensions=Greek}\p{Script_Extensions=Cyrillic}\p{Script_Extensions=Common}\p{Script_Extensions=Inherited}]/u;

export function formatCodePoint(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

function joinerAllowed(cp: number, prev: string | undefined, next: string | undefined): boolean {
  if (prev === undefined || next === undefined) return false;
  if (cp === 0x200d && EMOJI.test(prev) && EMOJI.test(next)) return true;
  return LETTER_OR_MARK.test(prev) && !NO_JOINER_SCRIPT.test(prev) && LETTER_OR_MARK.test(next);
}

/** Every code point that needs a closer look; text without any (nearly all of it) is done in one scan. */
const SUSPECT = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\u2028\u2029\ud800-\udfff]/u;

/** Why `text` may not be an identifier, or null when it may. Check the form you will store (NFC). */
export function identifierProblem(text: string): TextProblem | null {
  if (!SUSPECT.test(text)) return null;
  let prev: string | undefined;
  let index = 0;
  const chars = text[Symbol.iterator]();
  let cur = chars.next();
  while (!cur.done) {
    const ch = cur.value;
    const following = chars.next();
    const next = following.done ? undefined : following.value;
    const cp = ch.codePointAt(0)!;
    if (cp >= 0x20 && cp < 0x7f) {
      index += 1;
      prev = ch;
      cur = following;
      continue;
    }
    const problem = (reason: string): TextProblem => ({ codePoint: formatCodePoint(cp), index, reason });
    if (cp >= 0xd800 && cp <= 0xdfff) return problem(`an unpaired UTF-16 surrogate ${formatCodePoint(cp)} (not valid Unicode)`);
    if (cp === 0) return problem('a NUL character');
    if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) return problem(`a control character ${formatCodePoint(cp)}`);
    if (SEPARATOR.test(ch)) return problem(`a line or paragraph separator ${formatCodePoint(cp)}`);
    if (BIDI.test(ch)) {
      return problem(`a bidirectional control ${formatCodePoint(cp)} (it makes text display in another order than it is stored)`);
    }
    if (cp === 0x200c || cp === 0x200d) {
      if (!joinerAllowed(cp, prev, next)) {
        return problem(
          `a zero-width ${cp === 0x200c ? 'non-joiner' : 'joiner'} ${formatCodePoint(cp)} where it is invisible ` +
            '(allowed only between letters of scripts that use it, or inside an emoji sequence)',
        );
      }
    } else if (VARIATION_SELECTOR.test(ch)) {
      if (prev === undefined || !VISIBLE_BASE.test(prev)) {
        return problem(`a variation selector ${formatCodePoint(cp)} that follows no visible character`);
      }
    } else if (TAG.test(ch)) {
      if (prev === undefined || (prev.codePointAt(0) !== BLACK_FLAG && !TAG.test(prev))) {
        return problem(`a tag character ${formatCodePoint(cp)} outside an emoji flag sequence`);
      }
    } else if (INVISIBLE.test(ch)) {
      return problem(`an invisible character ${formatCodePoint(cp)} (it makes different names look the same)`);
    }
    index += ch.length;
    prev = ch;
    cur = following;
  }
  return null;
}

/** The stored form of identifier text: NFC, so canonically equivalent spellings are one name. */
export function normalizeIdentifier(text: string): string {
  return text.normalize('NFC');
}
