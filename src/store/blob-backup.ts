/**
 * The bucket's part of a backup (docs/operations.md, "Blobs in object storage"): the objects a
 * database references, copied into a directory (`{agent}/{hex}`, each checked against its hash),
 * and copied back into the bucket on restore where they are missing (the sweep may have deleted
 * one the backup references since: a purge came after it). Objects are content-addressed and never
 * change, so a copy already in the directory is kept as it is: a second backup into the same
 * directory copies only the new ones.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { contentHash } from '../core/text.js';
import type { BlobObjects } from './blob-objects.js';

/** One page of (agent, hash) of the external contents after `after`, in order. */
export type ExternalRefs = (after: [string, string] | null, limit: number) => Promise<Array<[string, string]>>;

const PAGE = 1000;
const SQL_PAGE = `SELECT agent_id, hash FROM blobs WHERE encoding = 'external' AND (agent_id > $1 OR (agent_id = $1 AND hash > $2))
                   ORDER BY agent_id, hash LIMIT $3`;

/** The external contents a SQLite database file references (opened read-only for each page). */
export function sqliteRefs(file: string): ExternalRefs {
  return async (after, limit) => {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const [agent, hash] = after ?? ['', ''];
      return db.prepare(SQL_PAGE.replace(/\$1/g, '@a').replace('$2', '@h').replace('$3', '@n')).raw().all({ a: agent, h: hash, n: limit }) as Array<
        [string, string]
      >;
    } finally {
      db.close();
    }
  };
}

/** The external contents a PostgreSQL database references. */
export function postgresRefs(url: string): ExternalRefs {
  return async (after, limit) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const [agent, hash] = after ?? ['', ''];
      return (await c.query({ text: SQL_PAGE, values: [agent, hash, limit], rowMode: 'array' })).rows as Array<[string, string]>;
    } finally {
      await c.end();
    }
  };
}

async function* allRefs(refs: ExternalRefs): AsyncIterable<[string, string]> {
  let after: [string, string] | null = null;
  for (;;) {
    const page = await refs(after, PAGE);
    yield* page;
    if (page.length < PAGE) return;
    after = page[page.length - 1]!;
  }
}

const fileOf = (dir: string, agentId: string, hash: string) => join(dir, agentId, hash.slice(hash.indexOf(':') + 1));

export class ObjectBackupError extends Error {}

/** Copies every referenced object not yet in `dir` there; a missing or corrupt object fails the backup. */
export async function backupObjects(objects: BlobObjects, refs: ExternalRefs, dir: string): Promise<{ copied: number; kept: number }> {
  let copied = 0;
  let kept = 0;
  for await (const [agentId, hash] of allRefs(refs)) {
    const file = fileOf(dir, agentId, hash);
    if (existsSync(file)) {
      kept++;
      continue;
    }
    const bytes = await objects.get(agentId, hash);
    if (!bytes) throw new ObjectBackupError(`the object of ${agentId}'s content ${hash} is missing from ${objects.location}`);
    if (contentHash(bytes) !== hash) throw new ObjectBackupError(`the object of ${agentId}'s content ${hash} does not hash to its address`);
    mkdirSync(join(dir, agentId), { recursive: true });
    writeFileSync(`${file}.partial`, bytes);
    renameSync(`${file}.partial`, file);
    copied++;
  }
  return { copied, kept };
}

/**
 * PUTs back every object the restored database references that the bucket lacks, from `dir`
 * (checked against its hash first); one neither place has fails the restore, naming it.
 */
export async function restoreObjects(objects: BlobObjects, refs: ExternalRefs, dir: string): Promise<{ restored: number; present: number }> {
  let restored = 0;
  let present = 0;
  for await (const [agentId, hash] of allRefs(refs)) {
    if ((await objects.lastModified(agentId, hash)) !== null) {
      present++;
      continue;
    }
    const file = fileOf(dir, agentId, hash);
    if (!existsSync(file)) throw new ObjectBackupError(`${agentId}'s content ${hash} is neither in ${objects.location} nor in ${dir}`);
    const bytes = readFileSync(file);
    if (contentHash(bytes) !== hash) throw new ObjectBackupError(`${file} does not hash to ${hash}`);
    await objects.put(agentId, hash, bytes);
    restored++;
  }
  return { restored, present };
}
