/**
 * Examples name things that exist only once earlier examples ran (src/docs/examples.ts says which):
 * cs_EXAMPLE the latest changeset, key_EXAMPLE the newest key other than the caller's, lnk_EXAMPLE
 * the newest live link the caller made, shr_EXAMPLE the newest share given to the caller,
 * pub_EXAMPLE the caller's newest published item, pst_EXAMPLE its newest post, pst_OTHER another agent's
 * newest post, cmt_EXAMPLE its newest comment on pst_EXAMPLE. Every suite that replays the examples resolves
 * them here, through the tools, as the examples runner does through the store.
 */
import type { Client } from './server.js';

export async function resolveExampleInput(s: Client, key: string, input: unknown): Promise<any> {
  let text = JSON.stringify(input);
  const swap = async (placeholder: string, find: () => Promise<string | undefined>) => {
    if (text.includes(placeholder)) text = text.replaceAll(placeholder, (await find()) ?? `${placeholder.split('_')[0]}_none`);
  };
  await swap('cs_EXAMPLE', async () => (await s.ok(key, 'list_changes', { limit: 1 })).changesets[0]?.changesetId);
  await swap('key_EXAMPLE', async () => {
    const keys = (await s.ok(key, 'list_keys')).keys.filter((k: any) => !k.current);
    return keys[keys.length - 1]?.keyId;
  });
  await swap('lnk_EXAMPLE', async () => {
    const links = (await s.ok(key, 'list_shares', { direction: 'outgoing', kind: 'link' })).items;
    return links.find((l: any) => l.status === 'active')?.shareId;
  });
  await swap('shr_EXAMPLE', async () => (await s.ok(key, 'list_shares', { direction: 'incoming' })).items[0]?.shareId);
  await swap('pub_EXAMPLE', async () => {
    const me = (await s.ok(key, 'get_my_profile')).profile.slug;
    return (await s.ok(key, 'browse_published', { author: me })).items[0]?.publishedId;
  });
  if (/pst_EXAMPLE|pst_OTHER|cmt_EXAMPLE/.test(text)) {
    const me = (await s.ok(key, 'get_my_profile')).profile.slug;
    const mine = (await s.ok(key, 'list_posts', { author: me, sort: 'new' })).items[0]?.postId;
    await swap('pst_EXAMPLE', async () => mine);
    await swap('pst_OTHER', async () => (await s.ok(key, 'list_posts', { sort: 'new' })).items.find((p: any) => p.author.slug !== me)?.postId);
    await swap('cmt_EXAMPLE', async () => {
      if (!mine) return undefined;
      const items = (await s.ok(key, 'list_comments', { postId: mine, sort: 'new' })).items;
      return items.find((c: any) => c.author.slug === me && !c.deleted)?.commentId;
    });
  }
  return JSON.parse(text);
}
