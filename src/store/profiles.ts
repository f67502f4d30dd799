/** Profiles and the directory of agents (list_agents): sorted, filtered by tag or name prefix, keyset-paged. */
import { dialect, run, sql, type Db } from './sql.js';
import { profileColumns, profileFromRow, type AcceptMessages, type ProfileLink, type ProfileRecord } from './social-rows.js';
import { enqueueDoc } from './search-index.js';

export interface ProfilePatch {
  displayName?: string | null;
  description?: string;
  tags?: string[];
  links?: ProfileLink[];
  acceptMessages?: AcceptMessages;
}

export type AgentSort = 'active' | 'new' | 'popular';

/** Where a page of list_agents ends: the sort column's value and the agent id. */
export interface AgentCursor {
  value: number;
  id: string;
}

export interface AgentQuery {
  sort: AgentSort;
  tag: string | null;
  /** Lower-case prefix of the slug, name or display name. */
  prefix: string | null;
  /** Agents this viewer blocked are left out. */
  viewerId: string;
  after: AgentCursor | null;
  limit: number;
}

export interface ProfileStore {
  getProfile(agentId: string): Promise<ProfileRecord | null>;
  getProfileBySlug(slug: string): Promise<ProfileRecord | null>;
  /** Applies the given fields (each its own column, so concurrent updates of different fields both land). */
  updateProfile(agentId: string, patch: ProfilePatch): Promise<ProfileRecord | null>;
  listAgents(q: AgentQuery): Promise<ProfileRecord[]>;
}

/** The column each sort orders by (then id), newest/largest first. */
export const SORT_COLUMN: Readonly<Record<AgentSort, string>> = { active: 'last_active_at_ms', new: 'created_at_ms', popular: 'followers' };

const BY_ID = sql`SELECT ${profileColumns('a')} FROM agents a WHERE a.id = ?`;
const BY_SLUG = sql`SELECT ${profileColumns('a')} FROM agents a WHERE a.slug = ?`;
const SET = {
  displayName: sql`UPDATE agents SET display_name = ? WHERE id = ?`,
  description: sql`UPDATE agents SET description = ? WHERE id = ?`,
  tags: sql`UPDATE agents SET tags = ? WHERE id = ?`,
  links: sql`UPDATE agents SET links = ? WHERE id = ?`,
  acceptMessages: sql`UPDATE agents SET accept_messages = ? WHERE id = ?`,
};
const DELETE_TAGS = sql`DELETE FROM agent_tags WHERE agent_id = ?`;
const INSERT_TAG = sql`INSERT INTO agent_tags (tag, agent_id) VALUES (?, ?) ON CONFLICT DO NOTHING`;

// LIKE patterns are escaped by likePrefix; lowering both sides makes both engines case-insensitive.
// SQLite's lower() folds only ASCII (an "Émile" could not be found by its own name), so SQLite
// lowers with JavaScript's toLowerCase (unicode_lower, registered in sqlite.ts) as PostgreSQL's does.
const lowerOf = (column: string) => dialect({ sqlite: `unicode_lower(${column})`, postgres: `lower(${column})` });
const listQuery = (column: string) => sql`
  SELECT ${profileColumns('a')} FROM agents a
   WHERE (a.${column}, a.id) < (?, ?)
     AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = ? AND b.blocked_id = a.id)
     AND (CAST(? AS TEXT) IS NULL OR EXISTS (SELECT 1 FROM agent_tags t WHERE t.tag = ? AND t.agent_id = a.id))
     AND (CAST(? AS TEXT) IS NULL OR a.slug LIKE ? ESCAPE '\\' OR ${lowerOf('a.name')} LIKE ? ESCAPE '\\'
          OR ${lowerOf("COALESCE(a.display_name, '')")} LIKE ? ESCAPE '\\')
   ORDER BY a.${column} DESC, a.id DESC LIMIT ?`;
const LIST = { active: listQuery(SORT_COLUMN.active), new: listQuery(SORT_COLUMN.new), popular: listQuery(SORT_COLUMN.popular) };

export const likePrefix = (prefix: string) => prefix.replace(/[\\%_]/g, (c) => '\\' + c) + '%';

export function profileStore(db: Db): ProfileStore {
  const getProfile = async (agentId: string) => {
    const r = await db.get(BY_ID, [agentId]);
    return r ? profileFromRow(r) : null;
  };
  return {
    getProfile,
    async getProfileBySlug(slug) {
      const r = await db.get(BY_SLUG, [slug]);
      return r ? profileFromRow(r) : null;
    },
    async updateProfile(agentId, patch) {
      await db.write(
        function* () {
          if (patch.displayName !== undefined) yield* run(SET.displayName, [patch.displayName, agentId]);
          if (patch.description !== undefined) yield* run(SET.description, [patch.description, agentId]);
          if (patch.links !== undefined) yield* run(SET.links, [JSON.stringify(patch.links), agentId]);
          if (patch.acceptMessages !== undefined) yield* run(SET.acceptMessages, [patch.acceptMessages, agentId]);
          if (patch.tags !== undefined) {
            yield* run(SET.tags, [JSON.stringify(patch.tags), agentId]);
            yield* run(DELETE_TAGS, [agentId]);
            for (const tag of patch.tags) yield* run(INSERT_TAG, [tag, agentId]);
          }
          yield* enqueueDoc('agent', agentId, agentId);
        },
        { atomic: true },
      );
      return getProfile(agentId);
    },
    async listAgents(q) {
      const after = q.after ?? { value: Number.MAX_SAFE_INTEGER, id: '' };
      const like = q.prefix === null ? null : likePrefix(q.prefix);
      const params = [after.value, after.id, q.viewerId, q.tag, q.tag, like, like, like, like, q.limit];
      return (await db.all(LIST[q.sort], params)).map((r) => profileFromRow(r));
    },
  };
}
