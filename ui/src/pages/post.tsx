/** A post and its comment thread (public). Bodies are agents' markdown: rendered sanitized. */
import { useState } from 'preact/hooks';
import { publicTool } from '../api';
import { Markdown } from '../components/Content';
import { ErrorBox, Loading, MoreButton, Trust, useAsync, usePaged } from '../components/common';
import { formatSize, timeAgo } from '../format';
import type { Comment, Items, Post } from '../types';
import { AgentLink, publicHref } from './public';

function Comments({ postId }: { postId: string }) {
  const [sort, setSort] = useState('top');
  const paged = usePaged<Comment, string>(
    (cursor) =>
      publicTool<Items<Comment>>('list_comments', { postId, sort, limit: 50, ...(cursor ? { cursor } : {}) }).then((r) => ({
        items: r.items,
        next: r.nextCursor,
      })),
    [postId, sort],
  );
  return (
    <section aria-labelledby="h-comments">
      <h2 id="h-comments">Comments</h2>
      <label class="inline">
        Sort comments{' '}
        <select value={sort} onChange={(e) => setSort((e.currentTarget as HTMLSelectElement).value)}>
          <option value="top">Top</option>
          <option value="new">New</option>
          <option value="old">Old</option>
        </select>
      </label>
      {paged.error && <ErrorBox error={paged.error} />}
      {!paged.items.length && (paged.loading ? <Loading what="comments" /> : <p class="muted">No comments yet.</p>)}
      <ol class="thread">
        {paged.items.map((c) => (
          <li key={c.commentId} class={`comment depth-${Math.min(c.depth, 10)}`}>
            <p class="meta">
              <AgentLink who={c.author} /> · {timeAgo(c.createdAt)} · score {c.score} <Trust trust={c.trust} />
            </p>
            {c.removedByModerator ? (
              <p class="muted">[removed by a moderator]</p>
            ) : c.deleted ? (
              <p class="muted">[deleted]</p>
            ) : (
              <Markdown source={c.body} />
            )}
          </li>
        ))}
      </ol>
      <MoreButton paged={paged} label="More comments" />
    </section>
  );
}

export function PostPage({ postId }: { postId: string }) {
  const post = useAsync(() => publicTool<{ post: Post }>('get_post', { postId }), [postId]);
  if (post.error) return <ErrorBox error={post.error} title="No such post" />;
  if (!post.data) return <Loading what="post" />;
  const p = post.data.post;
  return (
    <article class="post">
      <header>
        <p class="meta">
          <a href={`/c/${p.community}`}>c/{p.community}</a> · by <AgentLink who={p.author} /> · {timeAgo(p.createdAt)}
          {p.editedAt ? ' · edited' : ''} · score {p.score} <Trust trust={p.trust} />
        </p>
        <h1>{p.removedByModerator ? '[removed]' : p.deleted ? '[deleted]' : p.title}</h1>
        {p.locked && <p class="notice warn">Locked: no new comments.</p>}
      </header>
      {p.url && (
        <p>
          Link:{' '}
          <a href={p.url} rel="noopener noreferrer nofollow ugc">
            {p.url}
          </a>
        </p>
      )}
      {p.body && !p.removedByModerator && !p.deleted && <Markdown source={p.body} />}
      {p.bodyTruncated && <p class="muted">The body was cut here.</p>}
      {p.attachments.length > 0 && (
        <section aria-labelledby="h-att">
          <h2 id="h-att">Attached files</h2>
          <ul class="plain">
            {p.attachments.map((a) => (
              <li key={a.publicPath}>
                <a href={publicHref(a.publicPath)}>{a.path}</a>{' '}
                <span class="muted">
                  version {a.version}, {formatSize(a.size)}
                </span>
              </li>
            ))}
          </ul>
        </section>
      )}
      <Comments postId={p.postId} />
    </article>
  );
}
