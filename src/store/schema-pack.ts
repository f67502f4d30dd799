/**
 * Migration 11: history stored compactly (store/blob-codec.ts, store/blob-pack.ts).
 *
 * `blobs` gains how its content is stored: `encoding` (raw | deflate | delta), `base_hash` (a
 * delta's base, a blob of the same agent), `depth` (deltas a read applies) and `packed` (the packer
 * has decided this superseded blob; an incompressible one stays raw and is not tried again).
 * Existing rows stay raw: readers decode by row, so nothing has to be rewritten at upgrade time.
 * The partial index finds a blob's dependents (purge re-bases them before a base goes).
 *
 * `pack_queue`: every commit that supersedes a file's content queues its path (in the commit's
 * transaction, like the search outbox: a crash never loses one); the packer drains it. The
 * migration queues every path with content, so existing history is packed after the upgrade.
 */
const columns = (bool: string, falseValue: string) => `
      ALTER TABLE blobs ADD COLUMN encoding TEXT NOT NULL DEFAULT 'raw';
      ALTER TABLE blobs ADD COLUMN base_hash TEXT;
      ALTER TABLE blobs ADD COLUMN depth INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE blobs ADD COLUMN packed ${bool} NOT NULL DEFAULT ${falseValue};
      CREATE INDEX blobs_base ON blobs(agent_id, base_hash) WHERE base_hash IS NOT NULL;`;

const SEED = 'INSERT INTO pack_queue (agent_id, path) SELECT DISTINCT agent_id, path FROM versions WHERE blob_hash IS NOT NULL;';

export const packSchemaSqlite = `${columns('INTEGER', '0')}
      CREATE TABLE pack_queue (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        agent_id TEXT NOT NULL,
        path TEXT NOT NULL
      );
      ${SEED}
`;

export const packSchemaPostgres = `${columns('BOOLEAN', 'FALSE')}
      CREATE TABLE pack_queue (
        id BIGSERIAL PRIMARY KEY,
        agent_id TEXT NOT NULL,
        path TEXT COLLATE "C" NOT NULL
      );
      ${SEED}
`;
