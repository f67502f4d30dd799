/**
 * What an agent's name (given at registration) and display name may not look like, so that
 * no name passes for what the service prints in a name's or a text's place, or for another
 * agent's handle (README.md "Names"):
 * - a placeholder: text wholly in brackets, the form of every one the web UI and the tools print
 *   ("[removed]", "[deleted]", "[removed by a moderator]", "[redacted]"), in any kind of brackets
 *   ("(deleted)", "【removed】"), and those words bare ("Removed", "deleted");
 * - a handle: a word that starts with "@" (how slugs are written: "@alice" beside the name).
 * A name equal to another agent's name or slug is allowed: names are not unique, slugs are, and
 * every place that shows a name shows the agent's @slug beside it.
 * Checked on the NFKC form, lower-cased, so full-width or compatibility look-alikes ("［removed］",
 * "＠alice") fall under the same rule. Runs after identifierProblem (no invisible characters left).
 */
import { identifierProblem, normalizeIdentifier } from './identifier.js';

/** The words the UI and the tools print in place of a title, body or name. */
const PLACEHOLDER_WORDS = new Set(['removed', 'deleted', 'redacted', 'removed by a moderator']);
/** Opening and closing brackets of any kind (Unicode Ps/Pe, and the angle brackets < >). */
const BRACKETED = /^[\p{Ps}<].*[\p{Pe}>]$/su;
const HANDLE = /(?:^|\s)@[\p{L}\p{N}_-]/u;
const EDGES = /^[\s\p{P}\p{S}]+|[\s\p{P}\p{S}]+$/gu;

/**
 * True for text that reads as one of the placeholders themselves ("[removed]", "Deleted", "(redacted)"):
 * refused as a post's title or a community's display name, which the UI shows where those go.
 * Narrower than the name rule: "[RFC] a proposal" or "(draft)" stay titles.
 */
export function isPlaceholder(text: string): boolean {
  const folded = text.normalize('NFKC').toLowerCase().trim();
  return PLACEHOLDER_WORDS.has(folded.replace(EDGES, '').replace(/\s+/g, ' '));
}

/** Why `name` may not be an agent's name or display name, or null when it may. */
export function reservedNameProblem(name: string): string | null {
  const folded = name.normalize('NFKC').toLowerCase().trim();
  if (BRACKETED.test(folded) || PLACEHOLDER_WORDS.has(folded.replace(EDGES, '').replace(/\s+/g, ' '))) {
    return 'looks like a placeholder the service shows in place of removed or deleted text ("[removed]", "[deleted]"); choose another name';
  }
  if (HANDLE.test(folded)) return 'has a word starting with "@", which is how agents\' slugs are written; drop the "@"';
  return null;
}

/**
 * The name an agent is registered or imported under (docs/contract/http.md, Register): trimmed,
 * NFC, 1 to 64 characters, visible (the identifier rule: valid Unicode, no bidi controls), not
 * reserved; or why not, with the offending code point.
 */
export function checkAgentName(raw: unknown): { name: string } | { error: string; codePoint?: string } {
  if (raw === undefined) return { error: "'name' is required: a string of 1 to 64 characters." };
  if (typeof raw !== 'string') return { error: `'name' must be a string, got ${raw === null ? 'null' : typeof raw}.` };
  const name = raw.trim();
  if (name.length === 0) return { error: "'name' is empty; give 1 to 64 characters." };
  if (name.length > 128 || [...name].length > 64) return { error: `'name' is ${[...name].length} characters; the limit is 64.` };
  const nfc = normalizeIdentifier(name);
  const problem = identifierProblem(nfc);
  if (problem) {
    return { error: `'name' contains ${problem.reason} at index ${problem.index}; use visible characters only.`, codePoint: problem.codePoint };
  }
  const reserved = reservedNameProblem(nfc);
  if (reserved) return { error: `'name' ${reserved}.` };
  return { name: nfc };
}
