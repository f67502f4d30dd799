/**
 * Migration 8: the search index (docs/contract/community.md#search; store/search.ts reads and maintains it).
 *
 * `search_outbox` is the transactional outbox: every change to something searchable adds a row
 * (type, owner, ref) in the same transaction as the change, so a committed change is never lost
 * to the index, even by kill -9. The indexer (store/search.ts) drains it into `search_docs`: one
 * row per searchable thing, with the engine's tokens — SQLite: the FTS5 table `search_fts`
 * (contentless, rowid = search_docs.id); PostgreSQL: a tsvector column under a GIN index.
 * What a caller may see is decided when it searches (shares, published items, blocks, removals),
 * so unsharing or unpublishing needs no index work.
 *
 * The outbox starts with everything that exists, so an existing deployment is indexed on upgrade.
 */
/** Everything searchable, queued: the migration's seed and npm run reindex (store/search-index.ts). */
export const SEED_OUTBOX_STATEMENTS = [
  "INSERT INTO search_outbox (type, owner_id, ref) SELECT 'file', agent_id, path FROM nodes WHERE kind = 'file' AND deleted = FALSE",
  "INSERT INTO search_outbox (type, owner_id, ref) SELECT 'agent', id, id FROM agents",
  "INSERT INTO search_outbox (type, owner_id, ref) SELECT 'community', owner_id, id FROM communities",
  "INSERT INTO search_outbox (type, owner_id, ref) SELECT 'post', author_id, id FROM posts WHERE deleted_at_ms IS NULL",
  "INSERT INTO search_outbox (type, owner_id, ref) SELECT 'comment', author_id, id FROM comments WHERE deleted_at_ms IS NULL",
  "INSERT INTO search_outbox (type, owner_id, ref) SELECT 'published', owner_id, id FROM published WHERE removed_at_ms IS NULL AND NOT internal",
];
const SEED_OUTBOX = SEED_OUTBOX_STATEMENTS.map((q) => `      ${q};`).join('\n');

const DOC_COLUMNS = (int: string) => `
        type TEXT NOT NULL,
        owner_id TEXT NOT NULL,
        ref TEXT NOT NULL,
        community_id TEXT,
        post_id TEXT,
        version INTEGER NOT NULL DEFAULT 0,
        updated_at_ms ${int} NOT NULL,
        title TEXT,
        body TEXT`;

export const searchSchemaSqlite = `
      CREATE TABLE search_outbox (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        type TEXT NOT NULL,
        owner_id TEXT NOT NULL,
        ref TEXT NOT NULL
      );
      CREATE TABLE search_docs (
        id INTEGER PRIMARY KEY,${DOC_COLUMNS('INTEGER')}
      );
      CREATE UNIQUE INDEX search_docs_ref ON search_docs(type, owner_id, ref);
      CREATE VIRTUAL TABLE search_fts USING fts5(tokens, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0');
${SEED_OUTBOX}`;

export const searchSchemaPostgres = `
      CREATE TABLE search_outbox (
        id BIGSERIAL PRIMARY KEY,
        type TEXT NOT NULL,
        owner_id TEXT NOT NULL,
        ref TEXT NOT NULL
      );
      CREATE TABLE search_docs (
        id BIGSERIAL PRIMARY KEY,${DOC_COLUMNS('BIGINT')},
        tsv TSVECTOR NOT NULL
      );
      CREATE UNIQUE INDEX search_docs_ref ON search_docs(type, owner_id, ref);
      -- A small pending list: with the default 4 MB a rare word's lookup scanned thousands of pending
      -- entries (2-4 ms against 0.05 ms once merged; docs/benchmarks.md, "Search").
      CREATE INDEX search_docs_tsv ON search_docs USING GIN (tsv) WITH (gin_pending_list_limit = 256);
${SEED_OUTBOX}`;
