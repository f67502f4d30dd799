/**
 * Schema migrations, one entry per step, each written for both dialects. Applied in order
 * under a lock (SQLite: an IMMEDIATE transaction; PostgreSQL: an advisory lock), so starting
 * two instances at once is safe. Never edit a released step: add a new one.
 *
 * Times are epoch milliseconds in BIGINT columns (never database now()): updatedAt must
 * round-trip exactly. Paths use byte order ("C" collation) so prefix range scans work.
 */
import { communitySchema } from './schema-community.js';
import { packSchemaPostgres, packSchemaSqlite } from './schema-pack.js';
import { exportsSchema } from './schema-exports.js';
import { searchSchemaPostgres, searchSchemaSqlite } from './schema-search.js';
import { sharesSchema } from './schema-shares.js';
import { socialSchemaPostgres, socialSchemaSqlite } from './schema-social.js';

export interface Migration {
  version: number;
  name: string;
  sqlite: string;
  postgres: string;
}

const ATTACHMENTS_PER_POST = `
  INSERT INTO published (id, owner_id, path, kind, version, title, description, tags, size, created_at_ms, removed_at_ms, internal)
  SELECT 'pub_att_' || p.id, p.author_id, '/.attachments/' || p.id, 'dir', NULL, 'Post attachments', '', '[]', 0, p.created_at_ms,
         COALESCE(p.deleted_at_ms, p.removed_at_ms), TRUE
    FROM posts p
   WHERE p.attachments <> '[]'
     AND EXISTS (SELECT 1 FROM published a WHERE a.owner_id = p.author_id AND a.path = '/.attachments' AND a.internal);
  UPDATE published SET removed_at_ms = created_at_ms WHERE internal AND path = '/.attachments' AND removed_at_ms IS NULL;
`;

/** The key columns whose change matters to an instance's cached lookups (not last_used_at_ms). */
const AUTH_KEY_COLUMNS = 'agent_id, label, scopes, folder, key_hash, expires_at_ms, revoked_at_ms, created_by_key_id';
const BUMP = 'BEGIN UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1; END';
const AUTH_EPOCH_SQLITE = `
  CREATE TABLE auth_epoch (id INTEGER PRIMARY KEY CHECK (id = 1), epoch INTEGER NOT NULL);
  INSERT INTO auth_epoch (id, epoch) VALUES (1, 0);
  CREATE TRIGGER api_keys_auth_update AFTER UPDATE OF ${AUTH_KEY_COLUMNS} ON api_keys ${BUMP};
  CREATE TRIGGER api_keys_auth_delete AFTER DELETE ON api_keys ${BUMP};
  CREATE TRIGGER agents_auth_update AFTER UPDATE OF name, slug ON agents ${BUMP};
  CREATE TRIGGER agents_auth_delete AFTER DELETE ON agents ${BUMP};
`;
const AUTH_EPOCH_POSTGRES = `
  CREATE TABLE auth_epoch (id BIGINT PRIMARY KEY CHECK (id = 1), epoch BIGINT NOT NULL);
  INSERT INTO auth_epoch (id, epoch) VALUES (1, 0);
  CREATE FUNCTION afs_auth_changed() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    UPDATE auth_epoch SET epoch = epoch + 1 WHERE id = 1;
    PERFORM pg_notify('afs_auth', '');
    RETURN NULL;
  END $$;
  CREATE TRIGGER api_keys_auth AFTER UPDATE OF ${AUTH_KEY_COLUMNS} OR DELETE ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION afs_auth_changed();
  CREATE TRIGGER agents_auth AFTER UPDATE OF name, slug OR DELETE ON agents
    FOR EACH STATEMENT EXECUTE FUNCTION afs_auth_changed();
`;

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
    sqlite: socialSchemaSqlite,
    postgres: socialSchemaPostgres,
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
  {
    version: 9,
    name: 'history pages read the page',
    // list_deleted walked every node under the directory to find the deleted ones (a partial
    // index holds only those); list_versions reads a file's versions at its former paths by
    // (file id, path). SQLite's index on (agent_id, file_id) already ended with the primary key's
    // path, PostgreSQL's did not; both get the same index (the schemas stay alike).
    sqlite: `
      CREATE INDEX nodes_deleted ON nodes(agent_id, path) WHERE deleted = TRUE AND purged_at_ms IS NULL;
      CREATE INDEX versions_file_path ON versions(agent_id, file_id, path);
      DROP INDEX versions_file;
    `,
    postgres: `
      CREATE INDEX nodes_deleted ON nodes(agent_id, path) WHERE deleted = TRUE AND purged_at_ms IS NULL;
      CREATE INDEX versions_file_path ON versions(agent_id, file_id, path);
      DROP INDEX versions_file;
    `,
  },
  {
    version: 10,
    name: 'exports: download links of agent archives',
    // One row per export_my_data call (store/transfer.ts): the archive is streamed when its link
    // is fetched, as of as_of_seq, so every instance on the database can serve it; only the
    // token's sha256 is stored.
    sqlite: exportsSchema('INTEGER'),
    postgres: exportsSchema('BIGINT'),
  },
  {
    version: 11,
    name: 'compact history: blob encodings (raw, deflate, delta) and the pack queue',
    sqlite: packSchemaSqlite,
    postgres: packSchemaPostgres,
  },
  {
    version: 12,
    name: 'search index: idle-time merges take any two segments of a level',
    // FTS5's 'merge' command (search-index.ts compactStep) merges a level's segments once it
    // holds `usermerge` of them (default 4); 2 keeps an index fed in small batches at a few
    // segments. Stored in the FTS5 table's own config; PostgreSQL's GIN index has no segments.
    sqlite: "INSERT INTO search_fts (search_fts, rank) VALUES ('usermerge', 2);",
    postgres: 'SELECT 1;',
  },
  {
    version: 13,
    name: 'shares: includeHistory',
    // A share shows its files' history from its creation on (created_at_ms); include_history
    // shows all of it (docs/contract/visibility.md). Shares made before this step
    // follow the new rule too.
    sqlite: 'ALTER TABLE shares ADD COLUMN include_history INTEGER NOT NULL DEFAULT 0;',
    postgres: 'ALTER TABLE shares ADD COLUMN include_history BOOLEAN NOT NULL DEFAULT FALSE;',
  },
  {
    version: 14,
    name: 'post attachments: one published item per post, taken down with the post',
    // Each post's /.attachments/{postId} becomes its own internal item (store/published.ts
    // showAttachmentsOf), removed while the post is removed or deleted; the agent-wide
    // /.attachments item goes (times: the rows' own, never the database's clock).
    sqlite: ATTACHMENTS_PER_POST,
    postgres: ATTACHMENTS_PER_POST,
  },
  {
    version: 15,
    name: 'byte order for every path, slug and name compared by range',
    // Paths of shares, published items, copy provenance and search documents are compared as
    // prefixes ("ref > path || '/' AND ref < path || '0'") and slugs and names page by range: on a
    // database whose default collation is not "C" (ICU, a libc locale) those compared by the
    // locale, so a share of /p matched /P/x and /p#x (docs/contributing.md, Migrations). The
    // indexes on these columns are rebuilt in byte order. SQLite compares bytes already.
    sqlite: 'SELECT 1;',
    postgres: `
      ALTER TABLE shares ALTER COLUMN path TYPE TEXT COLLATE "C";
      ALTER TABLE published ALTER COLUMN path TYPE TEXT COLLATE "C";
      ALTER TABLE provenance ALTER COLUMN path TYPE TEXT COLLATE "C", ALTER COLUMN from_path TYPE TEXT COLLATE "C";
      ALTER TABLE search_docs ALTER COLUMN ref TYPE TEXT COLLATE "C";
      ALTER TABLE search_outbox ALTER COLUMN ref TYPE TEXT COLLATE "C";
      ALTER TABLE agents ALTER COLUMN slug TYPE TEXT COLLATE "C";
      ALTER TABLE communities ALTER COLUMN name TYPE TEXT COLLATE "C";
    `,
  },
  {
    version: 16,
    name: 'auth epoch: key and identity changes announced to every instance',
    // Instances cache key lookups (http/auth.ts) and must drop them the moment a key is revoked,
    // re-scoped or its agent renamed, wherever that happened (docs/contract/keys.md). The
    // triggers announce exactly those changes, not lastUsedAt: both bump auth_epoch, which a
    // SQLite instance reads only when the file changed (PRAGMA data_version); PostgreSQL also
    // notifies channel afs_auth, which every instance listens on.
    sqlite: AUTH_EPOCH_SQLITE,
    postgres: AUTH_EPOCH_POSTGRES,
  },
];
