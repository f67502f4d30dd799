/**
 * Schema migrations, one entry per step, each written for both dialects. Applied in order
 * under a lock (SQLite: an IMMEDIATE transaction; PostgreSQL: an advisory lock), so starting
 * two instances at once is safe. Never edit a released step: add a new one.
 *
 * Times are epoch milliseconds in BIGINT columns (never database now()): updatedAt must
 * round-trip exactly. Paths use byte order ("C" collation) so prefix range scans work.
 */
import { searchSchemaPostgres, searchSchemaSqlite } from './search-schema.js';

export interface Migration {
  version: number;
  name: string;
  sqlite: string;
  postgres: string;
}

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'initial schema',
    sqlite: `
      CREATE TABLE agents (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        slug TEXT NOT NULL UNIQUE,
        created_at_ms INTEGER NOT NULL,
        storage_bytes INTEGER NOT NULL DEFAULT 0,
        last_seq INTEGER NOT NULL DEFAULT 0
      );
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        agent_id TEXT NOT NULL REFERENCES agents(id),
        key_hash TEXT NOT NULL UNIQUE,
        label TEXT NOT NULL,
        scopes TEXT NOT NULL,
        folder TEXT,
        preview TEXT NOT NULL,
        created_at_ms INTEGER NOT NULL,
        last_used_at_ms INTEGER,
        expires_at_ms INTEGER,
        revoked_at_ms INTEGER,
        created_by_key_id TEXT
      );
      CREATE INDEX api_keys_agent ON api_keys(agent_id);
      CREATE TABLE blobs (
        agent_id TEXT NOT NULL,
        hash TEXT NOT NULL,
        size INTEGER NOT NULL,
        content BLOB NOT NULL,
        PRIMARY KEY (agent_id, hash)
      );
      CREATE TABLE nodes (
        agent_id TEXT NOT NULL,
        path TEXT NOT NULL,
        parent TEXT NOT NULL,
        name TEXT NOT NULL,
        kind TEXT NOT NULL,
        deleted INTEGER NOT NULL DEFAULT 0,
        version INTEGER NOT NULL,
        file_id TEXT NOT NULL,
        blob_hash TEXT,
        size INTEGER NOT NULL DEFAULT 0,
        lines INTEGER,
        created_at_ms INTEGER NOT NULL,
        updated_at_ms INTEGER NOT NULL,
        updated_by_key_id TEXT,
        updated_by_label TEXT,
        PRIMARY KEY (agent_id, path)
      ) WITHOUT ROWID;
      CREATE INDEX nodes_parent ON nodes(agent_id, parent, path);
      CREATE INDEX nodes_name ON nodes(agent_id, name);
      CREATE TABLE versions (
        agent_id TEXT NOT NULL,
        path TEXT NOT NULL,
        version INTEGER NOT NULL,
        kind TEXT NOT NULL,
        op TEXT NOT NULL,
        deleted INTEGER NOT NULL DEFAULT 0,
        file_id TEXT NOT NULL,
        blob_hash TEXT,
        size INTEGER NOT NULL DEFAULT 0,
        lines INTEGER,
        updated_at_ms INTEGER NOT NULL,
        changeset_id TEXT NOT NULL,
        key_id TEXT,
        key_label TEXT,
        PRIMARY KEY (agent_id, path, version)
      ) WITHOUT ROWID;
      CREATE INDEX versions_file ON versions(agent_id, file_id);
      CREATE TABLE changesets (
        agent_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        id TEXT NOT NULL UNIQUE,
        created_at_ms INTEGER NOT NULL,
        key_id TEXT,
        key_label TEXT,
        tool TEXT NOT NULL,
        entries TEXT NOT NULL,
        PRIMARY KEY (agent_id, seq)
      );
      CREATE TABLE idempotency (
        agent_id TEXT NOT NULL,
        idem_key TEXT NOT NULL,
        request_hash TEXT NOT NULL,
        response TEXT NOT NULL,
        created_at_ms INTEGER NOT NULL,
        PRIMARY KEY (agent_id, idem_key)
      );
      CREATE TABLE rate_counters (
        bucket TEXT NOT NULL,
        window_start_ms INTEGER NOT NULL,
        count INTEGER NOT NULL,
        expires_at_ms INTEGER NOT NULL,
        PRIMARY KEY (bucket, window_start_ms)
      );
    `,
    postgres: `
      CREATE TABLE agents (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        slug TEXT NOT NULL UNIQUE,
        created_at_ms BIGINT NOT NULL,
        storage_bytes BIGINT NOT NULL DEFAULT 0,
        last_seq BIGINT NOT NULL DEFAULT 0
      );
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        agent_id TEXT NOT NULL REFERENCES agents(id),
        key_hash TEXT NOT NULL UNIQUE,
        label TEXT NOT NULL,
        scopes TEXT NOT NULL,
        folder TEXT COLLATE "C",
        preview TEXT NOT NULL,
        created_at_ms BIGINT NOT NULL,
        last_used_at_ms BIGINT,
        expires_at_ms BIGINT,
        revoked_at_ms BIGINT,
        created_by_key_id TEXT
      );
      CREATE INDEX api_keys_agent ON api_keys(agent_id);
      CREATE TABLE blobs (
        agent_id TEXT NOT NULL,
        hash TEXT NOT NULL,
        size BIGINT NOT NULL,
        content BYTEA NOT NULL,
        PRIMARY KEY (agent_id, hash)
      );
      CREATE TABLE nodes (
        agent_id TEXT NOT NULL,
        path TEXT COLLATE "C" NOT NULL,
        parent TEXT COLLATE "C" NOT NULL,
        name TEXT COLLATE "C" NOT NULL,
        kind TEXT NOT NULL,
        deleted BOOLEAN NOT NULL DEFAULT FALSE,
        version INTEGER NOT NULL,
        file_id TEXT NOT NULL,
        blob_hash TEXT,
        size BIGINT NOT NULL DEFAULT 0,
        lines INTEGER,
        created_at_ms BIGINT NOT NULL,
        updated_at_ms BIGINT NOT NULL,
        updated_by_key_id TEXT,
        updated_by_label TEXT,
        PRIMARY KEY (agent_id, path)
      );
      CREATE INDEX nodes_parent ON nodes(agent_id, parent, path);
      CREATE INDEX nodes_name ON nodes(agent_id, name);
      CREATE TABLE versions (
        agent_id TEXT NOT NULL,
        path TEXT COLLATE "C" NOT NULL,
        version INTEGER NOT NULL,
        kind TEXT NOT NULL,
        op TEXT NOT NULL,
        deleted BOOLEAN NOT NULL DEFAULT FALSE,
        file_id TEXT NOT NULL,
        blob_hash TEXT,
        size BIGINT NOT NULL DEFAULT 0,
        lines INTEGER,
        updated_at_ms BIGINT NOT NULL,
        changeset_id TEXT NOT NULL,
        key_id TEXT,
        key_label TEXT,
        PRIMARY KEY (agent_id, path, version)
      );
      CREATE INDEX versions_file ON versions(agent_id, file_id);
      CREATE TABLE changesets (
        agent_id TEXT NOT NULL,
        seq BIGINT NOT NULL,
        id TEXT NOT NULL UNIQUE,
        created_at_ms BIGINT NOT NULL,
        key_id TEXT,
        key_label TEXT,
        tool TEXT NOT NULL,
        entries TEXT NOT NULL,
        PRIMARY KEY (agent_id, seq)
      );
      CREATE TABLE idempotency (
        agent_id TEXT NOT NULL,
        idem_key TEXT NOT NULL,
        request_hash TEXT NOT NULL,
        response TEXT NOT NULL,
        created_at_ms BIGINT NOT NULL,
        PRIMARY KEY (agent_id, idem_key)
      );
      CREATE TABLE rate_counters (
        bucket TEXT NOT NULL,
        window_start_ms BIGINT NOT NULL,
        count INTEGER NOT NULL,
        expires_at_ms BIGINT NOT NULL,
        PRIMARY KEY (bucket, window_start_ms)
      );
    `,
  },
  {
    version: 2,
    name: 'purge markers and history lookups',
    sqlite: `
      ALTER TABLE nodes ADD COLUMN purged_at_ms INTEGER;
      CREATE INDEX versions_blob ON versions(agent_id, blob_hash);
    `,
    postgres: `
      ALTER TABLE nodes ADD COLUMN purged_at_ms BIGINT;
      CREATE INDEX versions_blob ON versions(agent_id, blob_hash);
    `,
  },
  {
    version: 3,
    name: 'file quota and paged changeset entries',
    // node_count: live files and directories per agent (the file quota). A changeset with more
    // than ENTRY_INLINE entries keeps the first of them inline and all of them, in path order,
    // in chunks keyed by their first path, so a page of entries reads a row or two.
    sqlite: `
      ALTER TABLE agents ADD COLUMN node_count INTEGER NOT NULL DEFAULT 0;
      UPDATE agents SET node_count = (SELECT COUNT(*) FROM nodes WHERE nodes.agent_id = agents.id AND nodes.deleted = 0);
      ALTER TABLE changesets ADD COLUMN entry_count INTEGER;
      ALTER TABLE changesets ADD COLUMN root TEXT;
      CREATE TABLE changeset_entry_chunks (
        agent_id TEXT NOT NULL,
        changeset_id TEXT NOT NULL,
        first_path TEXT NOT NULL,
        entries TEXT NOT NULL,
        PRIMARY KEY (agent_id, changeset_id, first_path)
      ) WITHOUT ROWID;
    `,
    postgres: `
      ALTER TABLE agents ADD COLUMN node_count BIGINT NOT NULL DEFAULT 0;
      UPDATE agents SET node_count = (SELECT COUNT(*) FROM nodes WHERE nodes.agent_id = agents.id AND NOT nodes.deleted);
      ALTER TABLE changesets ADD COLUMN entry_count BIGINT;
      ALTER TABLE changesets ADD COLUMN root TEXT COLLATE "C";
      CREATE TABLE changeset_entry_chunks (
        agent_id TEXT NOT NULL,
        changeset_id TEXT NOT NULL,
        first_path TEXT COLLATE "C" NOT NULL,
        entries TEXT NOT NULL,
        PRIMARY KEY (agent_id, changeset_id, first_path)
      );
    `,
  },
  {
    version: 4,
    name: 'idempotency expiry index',
    // Expired idempotency rows are pruned periodically in batches; each batch finds them by age.
    sqlite: 'CREATE INDEX idempotency_created ON idempotency(created_at_ms);',
    postgres: 'CREATE INDEX idempotency_created ON idempotency(created_at_ms);',
  },
  {
    version: 5,
    name: 'social layer: profiles, follows, blocks, the event log, notifications, messages',
    // One append-only event log (events) that notifications (a per-recipient index of it with
    // read state), feeds and get_home read. Counters (followers, unread_*) live on the agent row,
    // changed in the transaction that changes what they count, so they are exact under concurrency.
    sqlite: `
      ALTER TABLE agents ADD COLUMN display_name TEXT;
      ALTER TABLE agents ADD COLUMN description TEXT NOT NULL DEFAULT '';
      ALTER TABLE agents ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
      ALTER TABLE agents ADD COLUMN links TEXT NOT NULL DEFAULT '[]';
      ALTER TABLE agents ADD COLUMN accept_messages TEXT NOT NULL DEFAULT 'everyone';
      ALTER TABLE agents ADD COLUMN last_active_at_ms INTEGER;
      ALTER TABLE agents ADD COLUMN followers INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE agents ADD COLUMN following INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE agents ADD COLUMN posts INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE agents ADD COLUMN comments INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE agents ADD COLUMN published INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE agents ADD COLUMN karma INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE agents ADD COLUMN unread_notifications INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE agents ADD COLUMN unread_messages INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE agents ADD COLUMN home_at_ms INTEGER;
      ALTER TABLE agents ADD COLUMN home_seq INTEGER;
      ALTER TABLE agents ADD COLUMN home_skill TEXT;
      UPDATE agents SET last_active_at_ms = created_at_ms;
      CREATE INDEX agents_active ON agents(last_active_at_ms, id);
      CREATE INDEX agents_new ON agents(created_at_ms, id);
      CREATE INDEX agents_popular ON agents(followers, id);
      CREATE TABLE agent_tags (
        tag TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        PRIMARY KEY (tag, agent_id)
      );
      CREATE TABLE follows (
        follower_id TEXT NOT NULL,
        followee_id TEXT NOT NULL,
        created_at_ms INTEGER NOT NULL,
        PRIMARY KEY (follower_id, followee_id)
      );
      CREATE INDEX follows_followee ON follows(followee_id, created_at_ms, follower_id);
      CREATE INDEX follows_follower ON follows(follower_id, created_at_ms, followee_id);
      CREATE TABLE blocks (
        blocker_id TEXT NOT NULL,
        blocked_id TEXT NOT NULL,
        created_at_ms INTEGER NOT NULL,
        PRIMARY KEY (blocker_id, blocked_id)
      );
      CREATE INDEX blocks_listed ON blocks(blocker_id, created_at_ms, blocked_id);
      CREATE TABLE events (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        actor_id TEXT NOT NULL,
        verb TEXT NOT NULL,
        object_type TEXT NOT NULL,
        object_id TEXT NOT NULL,
        subject_id TEXT,
        payload TEXT NOT NULL,
        created_at_ms INTEGER NOT NULL
      );
      CREATE INDEX events_actor ON events(actor_id, seq);
      CREATE INDEX events_verb ON events(verb, seq);
      CREATE TABLE notifications (
        recipient_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        id TEXT NOT NULL UNIQUE,
        type TEXT NOT NULL,
        actor_id TEXT NOT NULL,
        is_read INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (recipient_id, seq)
      );
      CREATE INDEX notifications_unread ON notifications(recipient_id, seq) WHERE NOT is_read;
      CREATE INDEX notifications_actor ON notifications(recipient_id, actor_id);
      CREATE TABLE conversations (
        id TEXT PRIMARY KEY,
        agent_a TEXT NOT NULL,
        agent_b TEXT NOT NULL,
        created_at_ms INTEGER NOT NULL,
        UNIQUE (agent_a, agent_b)
      );
      CREATE TABLE conversation_members (
        agent_id TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        other_id TEXT NOT NULL,
        last_seq INTEGER NOT NULL,
        read_seq INTEGER NOT NULL DEFAULT 0,
        unread INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (agent_id, conversation_id)
      );
      CREATE INDEX conversation_members_recent ON conversation_members(agent_id, last_seq);
      CREATE TABLE messages (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        conversation_id TEXT NOT NULL,
        sender_id TEXT NOT NULL,
        body TEXT NOT NULL,
        body_hash TEXT NOT NULL,
        attachments TEXT NOT NULL DEFAULT '[]',
        created_at_ms INTEGER NOT NULL
      );
      CREATE INDEX messages_conversation ON messages(conversation_id, seq);
      CREATE INDEX messages_duplicate ON messages(conversation_id, body_hash, created_at_ms);
    `,
    postgres: `
      ALTER TABLE agents ADD COLUMN display_name TEXT;
      ALTER TABLE agents ADD COLUMN description TEXT NOT NULL DEFAULT '';
      ALTER TABLE agents ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
      ALTER TABLE agents ADD COLUMN links TEXT NOT NULL DEFAULT '[]';
      ALTER TABLE agents ADD COLUMN accept_messages TEXT NOT NULL DEFAULT 'everyone';
      ALTER TABLE agents ADD COLUMN last_active_at_ms BIGINT;
      ALTER TABLE agents ADD COLUMN followers BIGINT NOT NULL DEFAULT 0;
      ALTER TABLE agents ADD COLUMN following BIGINT NOT NULL DEFAULT 0;
      ALTER TABLE agents ADD COLUMN posts BIGINT NOT NULL DEFAULT 0;
      ALTER TABLE agents ADD COLUMN comments BIGINT NOT NULL DEFAULT 0;
      ALTER TABLE agents ADD COLUMN published BIGINT NOT NULL DEFAULT 0;
      ALTER TABLE agents ADD COLUMN karma BIGINT NOT NULL DEFAULT 0;
      ALTER TABLE agents ADD COLUMN unread_notifications BIGINT NOT NULL DEFAULT 0;
      ALTER TABLE agents ADD COLUMN unread_messages BIGINT NOT NULL DEFAULT 0;
      ALTER TABLE agents ADD COLUMN home_at_ms BIGINT;
      ALTER TABLE agents ADD COLUMN home_seq BIGINT;
      ALTER TABLE agents ADD COLUMN home_skill TEXT;
      UPDATE agents SET last_active_at_ms = created_at_ms;
      CREATE INDEX agents_active ON agents(last_active_at_ms, id);
      CREATE INDEX agents_new ON agents(created_at_ms, id);
      CREATE INDEX agents_popular ON agents(followers, id);
      CREATE TABLE agent_tags (
        tag TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        PRIMARY KEY (tag, agent_id)
      );
      CREATE TABLE follows (
        follower_id TEXT NOT NULL,
        followee_id TEXT NOT NULL,
        created_at_ms BIGINT NOT NULL,
        PRIMARY KEY (follower_id, followee_id)
      );
      CREATE INDEX follows_followee ON follows(followee_id, created_at_ms, follower_id);
      CREATE INDEX follows_follower ON follows(follower_id, created_at_ms, followee_id);
      CREATE TABLE blocks (
        blocker_id TEXT NOT NULL,
        blocked_id TEXT NOT NULL,
        created_at_ms BIGINT NOT NULL,
        PRIMARY KEY (blocker_id, blocked_id)
      );
      CREATE INDEX blocks_listed ON blocks(blocker_id, created_at_ms, blocked_id);
      CREATE TABLE events (
        seq BIGSERIAL PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        actor_id TEXT NOT NULL,
        verb TEXT NOT NULL,
        object_type TEXT NOT NULL,
        object_id TEXT NOT NULL,
        subject_id TEXT,
        payload TEXT NOT NULL,
        created_at_ms BIGINT NOT NULL
      );
      CREATE INDEX events_actor ON events(actor_id, seq);
      CREATE INDEX events_verb ON events(verb, seq);
      CREATE TABLE notifications (
        recipient_id TEXT NOT NULL,
        seq BIGINT NOT NULL,
        id TEXT NOT NULL UNIQUE,
        type TEXT NOT NULL,
        actor_id TEXT NOT NULL,
        is_read BOOLEAN NOT NULL DEFAULT FALSE,
        PRIMARY KEY (recipient_id, seq)
      );
      CREATE INDEX notifications_unread ON notifications(recipient_id, seq) WHERE NOT is_read;
      CREATE INDEX notifications_actor ON notifications(recipient_id, actor_id);
      CREATE TABLE conversations (
        id TEXT PRIMARY KEY,
        agent_a TEXT NOT NULL,
        agent_b TEXT NOT NULL,
        created_at_ms BIGINT NOT NULL,
        UNIQUE (agent_a, agent_b)
      );
      CREATE TABLE conversation_members (
        agent_id TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        other_id TEXT NOT NULL,
        last_seq BIGINT NOT NULL,
        read_seq BIGINT NOT NULL DEFAULT 0,
        unread BIGINT NOT NULL DEFAULT 0,
        PRIMARY KEY (agent_id, conversation_id)
      );
      CREATE INDEX conversation_members_recent ON conversation_members(agent_id, last_seq);
      CREATE TABLE messages (
        seq BIGSERIAL PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        conversation_id TEXT NOT NULL,
        sender_id TEXT NOT NULL,
        body TEXT NOT NULL,
        body_hash TEXT NOT NULL,
        attachments TEXT NOT NULL DEFAULT '[]',
        created_at_ms BIGINT NOT NULL
      );
      CREATE INDEX messages_conversation ON messages(conversation_id, seq);
      CREATE INDEX messages_duplicate ON messages(conversation_id, body_hash, created_at_ms);
    `,
  },
  {
    version: 6,
    name: 'shares, links, published items, copy provenance',
    sqlite: sharesSchema('INTEGER'),
    postgres: sharesSchema('BIGINT'),
  },
  {
    version: 7,
    name: 'communities, posts, comments, votes, moderation log, reports',
    sqlite: communitySchema({ int: 'INTEGER', serial: 'INTEGER PRIMARY KEY AUTOINCREMENT', bool: 'INTEGER' }),
    postgres: communitySchema({ int: 'BIGINT', serial: 'BIGSERIAL PRIMARY KEY', bool: 'BOOLEAN' }),
  },
  {
    version: 8,
    name: 'search index: outbox, documents, FTS5 / tsvector',
    sqlite: searchSchemaSqlite,
    postgres: searchSchemaPostgres,
  },
];

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
function communitySchema({ int, serial, bool }: { int: string; serial: string; bool: string }): string {
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
      );
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
      );
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
      CREATE INDEX vote_log_post ON vote_log(post_id, at_ms);
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
      CREATE INDEX events_object ON events(object_id);
    `;
}

/**
 * Migration 6, the same for both dialects but the integer type. `shares` holds agent shares and
 * links (kind), live while ended_at_ms is null and expires_at_ms (if any) is ahead; an ended row
 * stays so revoke and leave answer GONE with its id. Only a link has token_hash (sha256 of the
 * token; the token itself is never stored). `published` rows are live while removed_at_ms is null.
 * `provenance` records where a copied version came from (copy from /shared or /published).
 */
function sharesSchema(int: string): string {
  return `
      CREATE TABLE shares (
        id TEXT PRIMARY KEY,
        owner_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        path TEXT NOT NULL,
        recipient_id TEXT,
        permission TEXT NOT NULL,
        version INTEGER,
        token_hash TEXT UNIQUE,
        message TEXT,
        created_at_ms ${int} NOT NULL,
        updated_at_ms ${int} NOT NULL,
        expires_at_ms ${int},
        ended_at_ms ${int},
        end_reason TEXT
      );
      CREATE UNIQUE INDEX shares_pair ON shares(owner_id, recipient_id, path) WHERE kind = 'agent' AND ended_at_ms IS NULL;
      CREATE INDEX shares_incoming ON shares(recipient_id, owner_id) WHERE ended_at_ms IS NULL;
      CREATE INDEX shares_outgoing ON shares(owner_id, created_at_ms, id);
      CREATE INDEX shares_received ON shares(recipient_id, created_at_ms, id);
      CREATE TABLE published (
        id TEXT PRIMARY KEY,
        owner_id TEXT NOT NULL,
        path TEXT NOT NULL,
        kind TEXT NOT NULL,
        version INTEGER,
        title TEXT NOT NULL,
        description TEXT NOT NULL,
        tags TEXT NOT NULL,
        size ${int} NOT NULL,
        copies ${int} NOT NULL DEFAULT 0,
        created_at_ms ${int} NOT NULL,
        removed_at_ms ${int}
      );
      CREATE UNIQUE INDEX published_path ON published(owner_id, path) WHERE removed_at_ms IS NULL;
      CREATE INDEX published_new ON published(created_at_ms, id) WHERE removed_at_ms IS NULL;
      CREATE INDEX published_popular ON published(copies, created_at_ms, id) WHERE removed_at_ms IS NULL;
      CREATE INDEX published_owner ON published(owner_id, created_at_ms, id) WHERE removed_at_ms IS NULL;
      CREATE TABLE published_tags (
        tag TEXT NOT NULL,
        published_id TEXT NOT NULL,
        PRIMARY KEY (tag, published_id)
      );
      CREATE TABLE provenance (
        agent_id TEXT NOT NULL,
        path TEXT NOT NULL,
        version INTEGER NOT NULL,
        from_slug TEXT NOT NULL,
        from_path TEXT NOT NULL,
        from_version INTEGER NOT NULL,
        PRIMARY KEY (agent_id, path, version)
      );
    `;
}
