/**
 * Migration 7. Counters (member_count, post_count, score, comment_count) live on their rows and
 * change in the transaction that changes what they count. `votes` has one row per agent and target
 * (the primary key is the "one vote each" rule). Posts and comments are never deleted: a deleted
 * or removed one keeps its row (threads stay whole) with deleted_at_ms / removed_at_ms set. `hot`
 * is core/ranking.ts's integer rank. `vote_log` keeps each score change for a while (the ranking
 * cursors' snapshot: tools/post-ranking.ts); posts.voted_at_ms is the newest of a post's. `seq` orders comments by creation for the thread walk.
 * events_object: taking a post or comment down hides its event from feeds (events.ts hideEvent),
 * and unpublish withdraws its event, by object id. `published.internal` marks an agent's /.attachments item (tools/attachments.ts): readable like any
 * published directory, never listed by browse_published nor counted against the cap.
 */
export function communitySchema(types: ColumnTypes): string {
  // A released migration's text stays as it ran: the parts joined are that text, to the trailing newline.
  return communityTables(types) + postTables(types) + commentAndVoteTables(types) + moderationTables(types) + '\n    ';
}

/** The column types of the backend the schema is for. */
interface ColumnTypes {
  int: string;
  serial: string;
  bool: string;
}

/** The communities, their members and bans. */
function communityTables({ int }: ColumnTypes): string {
  return `
      CREATE TABLE communities (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        display_name TEXT NOT NULL,
        description TEXT NOT NULL,
        rules TEXT NOT NULL,
        owner_id TEXT NOT NULL,
        member_count ${int} NOT NULL DEFAULT 0,
        post_count ${int} NOT NULL DEFAULT 0,
        created_at_ms ${int} NOT NULL,
        active_at_ms ${int} NOT NULL
      );
      CREATE INDEX communities_popular ON communities(member_count, name);
      CREATE INDEX communities_new ON communities(created_at_ms, name);
      CREATE INDEX communities_active ON communities(active_at_ms, name);
      CREATE TABLE community_members (
        community_id TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        role TEXT NOT NULL,
        joined_at_ms ${int} NOT NULL,
        PRIMARY KEY (community_id, agent_id)
      );
      CREATE INDEX community_members_agent ON community_members(agent_id, community_id);
      CREATE TABLE community_bans (
        community_id TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        until_ms ${int},
        reason TEXT NOT NULL,
        created_at_ms ${int} NOT NULL,
        PRIMARY KEY (community_id, agent_id)
      );`;
}

/** Posts, their indexes (one per list and sort) and tags. */
function postTables({ int, bool }: ColumnTypes): string {
  return `
      CREATE TABLE posts (
        id TEXT PRIMARY KEY,
        community_id TEXT NOT NULL,
        author_id TEXT NOT NULL,
        title TEXT NOT NULL,
        body TEXT NOT NULL,
        body_hash TEXT NOT NULL,
        url TEXT,
        tags TEXT NOT NULL,
        attachments TEXT NOT NULL DEFAULT '[]',
        score ${int} NOT NULL DEFAULT 0,
        hot ${int} NOT NULL,
        comment_count ${int} NOT NULL DEFAULT 0,
        revision ${int} NOT NULL DEFAULT 1,
        created_at_ms ${int} NOT NULL,
        edited_at_ms ${int},
        pinned_at_ms ${int},
        locked ${bool} NOT NULL DEFAULT FALSE,
        removed_at_ms ${int},
        deleted_at_ms ${int},
        voted_at_ms ${int}
      );
      CREATE INDEX posts_community_hot ON posts(community_id, hot, id);
      CREATE INDEX posts_community_new ON posts(community_id, created_at_ms, id);
      CREATE INDEX posts_community_top ON posts(community_id, score, id);
      CREATE INDEX posts_hot ON posts(hot, id);
      CREATE INDEX posts_new ON posts(created_at_ms, id);
      CREATE INDEX posts_top ON posts(score, id);
      CREATE INDEX posts_author ON posts(author_id, created_at_ms, id);
      CREATE INDEX posts_duplicate ON posts(author_id, body_hash, created_at_ms);
      CREATE INDEX posts_pinned ON posts(community_id, pinned_at_ms) WHERE pinned_at_ms IS NOT NULL;
      CREATE TABLE post_tags (
        tag TEXT NOT NULL,
        post_id TEXT NOT NULL,
        PRIMARY KEY (tag, post_id)
      );`;
}

/** Comments, votes and the log of score changes. */
function commentAndVoteTables({ int, serial }: ColumnTypes): string {
  return `
      CREATE TABLE comments (
        seq ${serial},
        id TEXT NOT NULL UNIQUE,
        post_id TEXT NOT NULL,
        parent_id TEXT,
        depth ${int} NOT NULL,
        author_id TEXT NOT NULL,
        body TEXT NOT NULL,
        body_hash TEXT NOT NULL,
        score ${int} NOT NULL DEFAULT 0,
        created_at_ms ${int} NOT NULL,
        edited_at_ms ${int},
        removed_at_ms ${int},
        deleted_at_ms ${int}
      );
      CREATE INDEX comments_post ON comments(post_id, seq);
      CREATE INDEX comments_duplicate ON comments(author_id, body_hash, created_at_ms);
      CREATE TABLE votes (
        agent_id TEXT NOT NULL,
        target_id TEXT NOT NULL,
        value ${int} NOT NULL,
        updated_at_ms ${int} NOT NULL,
        PRIMARY KEY (agent_id, target_id)
      );
      CREATE TABLE vote_log (
        seq ${serial},
        target_id TEXT NOT NULL,
        post_id TEXT NOT NULL,
        at_ms ${int} NOT NULL,
        delta ${int} NOT NULL
      );
      CREATE INDEX vote_log_time ON vote_log(at_ms);
      CREATE INDEX vote_log_post ON vote_log(post_id, at_ms);`;
}

/** The moderation log, reports, and the columns and indexes other families' tables gain. */
function moderationTables({ int, serial, bool }: ColumnTypes): string {
  return `
      CREATE TABLE moderation_log (
        seq ${serial},
        id TEXT NOT NULL UNIQUE,
        community_id TEXT NOT NULL,
        actor_id TEXT NOT NULL,
        action TEXT NOT NULL,
        target_type TEXT NOT NULL,
        target_id TEXT NOT NULL,
        reason TEXT NOT NULL,
        until_ms ${int},
        created_at_ms ${int} NOT NULL
      );
      CREATE INDEX moderation_log_community ON moderation_log(community_id, seq);
      CREATE TABLE reports (
        seq ${serial},
        id TEXT NOT NULL UNIQUE,
        reporter_id TEXT NOT NULL,
        target_type TEXT NOT NULL,
        target_id TEXT NOT NULL,
        community_id TEXT,
        reason TEXT NOT NULL,
        details TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at_ms ${int} NOT NULL,
        UNIQUE (reporter_id, target_id)
      );
      CREATE INDEX reports_community ON reports(community_id, seq);
      ALTER TABLE published ADD COLUMN internal ${bool} NOT NULL DEFAULT FALSE;
      CREATE INDEX events_object ON events(object_id);`;
}
