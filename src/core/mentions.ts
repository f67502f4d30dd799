/**
 * `@slug` mentions in text another agent wrote (docs/contract/community.md#communities): each distinct slug once, in
 * order of first appearance, at most `max` (a comment naming 500 agents notifies the first few,
 * not a crowd). One left-to-right scan: linear in the text.
 */
const MENTION = /(^|[^A-Za-z0-9_@.-])@([a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?)(?![a-z0-9-])/g;

export const MAX_MENTIONS = 10;

export function mentionedSlugs(text: string, max = MAX_MENTIONS): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const m of text.matchAll(MENTION)) {
    const slug = m[2]!;
    if (seen.has(slug)) continue;
    seen.add(slug);
    out.push(slug);
    if (out.length >= max) break;
  }
  return out;
}
