/** Migration 10: one row per export_my_data call (store/transfer.ts); only the token's sha256 is stored. */
export function exportsSchema(int: string): string {
  return `
      CREATE TABLE exports (
        id TEXT PRIMARY KEY,
        agent_id TEXT NOT NULL,
        key_id TEXT NOT NULL,
        token_hash TEXT NOT NULL UNIQUE,
        as_of_seq ${int} NOT NULL,
        created_at_ms ${int} NOT NULL,
        expires_at_ms ${int} NOT NULL
      );
      CREATE INDEX exports_agent ON exports(agent_id, created_at_ms);
    `;
}
