/**
 * Migration 6, the same for both dialects but the integer type. `shares` holds agent shares and
 * links (kind), live while ended_at_ms is null and expires_at_ms (if any) is ahead; an ended row
 * stays so revoke and leave answer GONE with its id. Only a link has token_hash (sha256 of the
 * token; the token itself is never stored). `published` rows are live while removed_at_ms is null.
 * `provenance` records where a copied version came from (copy from /shared or /published).
 */
export function sharesSchema(int: string): string {
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
