/**
 * Plays a world (visibility-world.ts) against a real server over HTTP: registers its agents (the
 * owner, a recipient, a stranger; the owner's folder key and key without files:read), runs each
 * operation with the key it names, and records the ids the server gave (shares, publications,
 * posts, links) and how each exposure was answered, so the checks can compare with the model.
 */
import type { Client, TestServer } from './server.js';
import { FOLDER, type KeyKind, type World } from './visibility-world.js';
import type { ModelView } from './visibility-model.js';

export interface Agent {
  id: string;
  slug: string;
  key: string;
}

export interface Played {
  world: World;
  owner: Agent;
  recipient: Agent;
  stranger: Agent;
  keys: Record<KeyKind, string>;
  /** The recipient's key with files:read and search only (no community:read). */
  searchOnly: string;
  /** The owner's key ids (never shown to others). */
  keyIds: string[];
  /** Ids of the model's accepted posts, in order (null: the server refused one the model allows). */
  postIds: Array<string | null>;
  /** Attachment copies the server made: post index → (owner path@version → public path). */
  attachmentPaths: Map<number, Map<string, string>>;
  /** Link op index → the URL's path (/l/{token}). */
  links: Map<number, string>;
  /** Failures found while playing (an exposure answered against the rules). */
  failures: Failure[];
}

export interface Failure {
  check: string;
  detail: string;
}

export interface Community {
  name: string;
  moderator: Agent;
}

/** The community every world posts in, owned by an agent of no world (it moderates). */
export async function makeCommunity(s: TestServer, name: string): Promise<Community> {
  const m = await s.register(`Vis Moderator ${name}`);
  await s.ok(m.apiKey, 'create_community', { name });
  return { name, moderator: { id: m.id, slug: m.slug, key: m.apiKey } };
}

const TOOL_OF = { share: 'share', publish: 'publish', link: 'create_link', post: 'create_post' } as const;

async function register(s: Client, name: string): Promise<Agent> {
  const r = await s.register(name);
  return { id: r.id, slug: r.slug, key: r.apiKey };
}

export async function playWorld(s: TestServer, world: World, view: ModelView, community: Community): Promise<Played> {
  const tag = world.seed.toString(36);
  const [owner, recipient, stranger] = [
    await register(s, `Vis Owner ${tag}`),
    await register(s, `Vis Reader ${tag}`),
    await register(s, `Vis Stranger ${tag}`),
  ];
  const keys: Record<KeyKind, string> = {
    full: owner.key,
    folder: await s.addKey(owner.id, { scopes: ['files', 'shares', 'community'], folder: FOLDER, label: `lblf${tag}` }),
    noread: await s.addKey(owner.id, { scopes: ['community', 'shares'], label: `lbln${tag}` }),
  };
  const keyIds: string[] = (await s.ok(owner.key, 'list_keys')).keys.map((k: any) => k.keyId);
  await s.ok(owner.key, 'join_community', { community: community.name });
  await s.ok(recipient.key, 'follow', { slug: owner.slug });
  const played: Played = {
    world,
    owner,
    recipient,
    stranger,
    keys,
    searchOnly: await s.addKey(recipient.id, { scopes: ['files:read', 'search'], label: `lbls${tag}` }),
    keyIds,
    postIds: [],
    attachmentPaths: new Map(),
    links: new Map(),
    failures: [],
  };
  const shareIds: Array<string | null> = [];
  const pubIds: Array<string | null> = [];
  const allowedAt = new Map(view.exposures.map((e) => [e.op, e.allowed]));
  for (const [at, op] of world.ops.entries()) {
    const k = owner.key;
    if (op.t === 'write') await s.ok(k, 'write', { path: op.path, content: op.content });
    else if (op.t === 'delete') await s.ok(k, 'delete', { path: op.path });
    else if (op.t === 'move') await s.ok(k, 'move', { from: op.from, to: op.to });
    else if (op.t === 'revoke') {
      if (shareIds[op.share]) await s.ok(k, 'revoke_share', { shareId: shareIds[op.share] });
    } else if (op.t === 'unpublish') {
      if (pubIds[op.publish]) await s.ok(k, 'unpublish', { publishedId: pubIds[op.publish] });
    } else if (op.t === 'remove_post') {
      const postId = played.postIds[op.post];
      if (postId) await s.ok(community.moderator.key, 'moderate', { community: community.name, action: 'remove', target: postId, reason: 'leak' });
    } else if (op.t === 'delete_post') {
      const postId = played.postIds[op.post];
      if (postId) await s.ok(k, 'delete_post', { postId });
    } else if (op.t === 'block') {
      if (op.who === 'owner_blocks_recipient') await s.ok(k, 'block', { slug: recipient.slug });
      else await s.ok(stranger.key, 'block', { slug: owner.slug });
    } else {
      const allowed = allowedAt.get(at)!;
      const input: Record<string, unknown> =
        op.t === 'share'
          ? { path: op.path, with: recipient.slug, permission: op.permission, ...(op.includeHistory ? { includeHistory: true } : {}) }
          : op.t === 'publish'
            ? { path: op.path, title: `${world.word} item ${at}`, ...(op.version !== undefined ? { version: op.version } : {}) }
            : op.t === 'link'
              ? { path: op.path, ...(op.version !== undefined ? { version: op.version } : {}) }
              : { community: community.name, title: `${world.word} post ${at}`, body: 'see attached', attachments: op.attachments };
      const r = await s.call(keys[op.key], TOOL_OF[op.t], input);
      const ok = r.status === 200 && r.inner?.success === true;
      if (ok !== allowed) {
        played.failures.push({
          check: `exposure.${TOOL_OF[op.t]}`,
          detail:
            `op ${at} with the ${op.key} key ${JSON.stringify(input)}: expected ${allowed ? 'success' : 'a refusal (reading the file needs files:read and the key folder)'}` +
            `, got ${r.status} ${JSON.stringify(r.inner ?? r.body).slice(0, 200)}`,
        });
      }
      if (!allowed) continue;
      if (op.t === 'share') shareIds.push(ok ? r.inner.share.shareId : null);
      else if (op.t === 'publish') pubIds.push(ok ? r.inner.published.publishedId : null);
      else if (op.t === 'link' && ok) played.links.set(at, new URL(r.inner.link.url).pathname);
      else if (op.t === 'post') {
        const post = ok ? r.inner.post : null;
        played.postIds.push(post?.postId ?? null);
        if (post)
          played.attachmentPaths.set(played.postIds.length - 1, new Map(post.attachments.map((a: any) => [`${a.path}@${a.version}`, a.publicPath])));
      }
    }
  }
  return played;
}
