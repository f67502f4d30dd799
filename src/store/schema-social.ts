/**
 * Migration 5, the social layer: profiles, follows, blocks, the event log, notifications,
 * messages (its comment in migrations.ts says how the counters stay exact).
 */
export const socialSchemaSqlite = `
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
    `;

export const socialSchemaPostgres = `
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
    `;
