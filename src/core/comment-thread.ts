/**
 * Thread order of a post's comments (docs/contract/community.md#communities): depth-first, each comment followed by its
 * replies, siblings by the sort — top (score, then oldest), new (newest first), old (oldest first).
 * Pure and linear after the sort: O(n log n) for n comments, no recursion (depth is bounded at
 * MAX_COMMENT_DEPTH anyway, but the walk does not rely on it).
 */
export const MAX_COMMENT_DEPTH = 10;

export type CommentSort = 'top' | 'new' | 'old';

export interface ThreadNode {
  id: string;
  parentId: string | null;
  score: number;
  /** Creation order (the row's sequence number). */
  seq: number;
}

export interface Placed {
  id: string;
  depth: number;
}

const ORDER: Record<CommentSort, (a: ThreadNode, b: ThreadNode) => number> = {
  top: (a, b) => b.score - a.score || a.seq - b.seq,
  new: (a, b) => b.seq - a.seq,
  old: (a, b) => a.seq - b.seq,
};

/** Every comment in thread order with its depth (0 for a reply to the post). Orphans (a parent not in `nodes`) count as top level. */
export function threadOrder(nodes: readonly ThreadNode[], sort: CommentSort): Placed[] {
  const ids = new Set(nodes.map((n) => n.id));
  const children = new Map<string | null, ThreadNode[]>();
  for (const n of nodes) {
    const parent = n.parentId !== null && ids.has(n.parentId) ? n.parentId : null;
    const list = children.get(parent);
    if (list) list.push(n);
    else children.set(parent, [n]);
  }
  for (const list of children.values()) list.sort(ORDER[sort]);
  const out: Placed[] = [];
  // A stack of sibling lists and the next index in each: depth = stack height - 1.
  const stack: Array<{ list: ThreadNode[]; next: number }> = [{ list: children.get(null) ?? [], next: 0 }];
  while (stack.length) {
    const top = stack[stack.length - 1]!;
    if (top.next >= top.list.length) {
      stack.pop();
      continue;
    }
    const node = top.list[top.next++]!;
    out.push({ id: node.id, depth: stack.length - 1 });
    const kids = children.get(node.id);
    if (kids) stack.push({ list: kids, next: 0 });
  }
  return out;
}
