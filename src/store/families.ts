/**
 * The store families, each a file of queries written once for both backends (see sql.ts), and
 * composed here into what both backend classes expose. A new family (a tool family's own tables)
 * adds its file, its interface to `Families` and its constructor to `sqlFamilies`.
 */
import { accountStore, type AccountStore } from './accounts.js';
import { commentStore, type CommentStore } from './comments.js';
import { communityStore, type CommunityStore } from './communities.js';
import { bashStore, type BashStore } from './bash.js';
import { packStore, type PackStore } from './blob-pack.js';
import { blobObjectStore, type BlobObjectStore } from './blob-sweep.js';
import { historyStore, type HistoryStore } from './history.js';
import { eventStore, type EventStore } from './events.js';
import { graphStore, type GraphStore } from './graph.js';
import { idempotencyStore, type IdempotencyStore } from './idempotency.js';
import { messageStore, type MessageStore } from './messages.js';
import { moderationStore, type ModerationStore } from './moderation.js';
import { postStore, type PostStore } from './posts.js';
import { profileStore, type ProfileStore } from './profiles.js';
import { publishedStore, type PublishedStore } from './published.js';
import { searchStore, type SearchStore } from './search.js';
import { sharesStore, type SharesStore } from './shares.js';
import type { Db } from './sql.js';
import { transferStore, type TransferStore } from './transfer.js';
import { treeStore, type TreeStore } from './tree.js';
import { voteStore, type VoteStore } from './votes.js';

export interface Families
  extends
    AccountStore,
    TreeStore,
    BashStore,
    HistoryStore,
    PackStore,
    BlobObjectStore,
    IdempotencyStore,
    ProfileStore,
    GraphStore,
    EventStore,
    MessageStore,
    SharesStore,
    PublishedStore,
    CommunityStore,
    PostStore,
    CommentStore,
    VoteStore,
    ModerationStore,
    SearchStore,
    TransferStore {}

export function sqlFamilies(db: Db): Families {
  return {
    ...accountStore(db),
    ...treeStore(db),
    ...bashStore(db),
    ...historyStore(db),
    ...packStore(db),
    ...blobObjectStore(db),
    ...idempotencyStore(db),
    ...profileStore(db),
    ...graphStore(db),
    ...eventStore(db),
    ...messageStore(db),
    ...sharesStore(db),
    ...publishedStore(db),
    ...communityStore(db),
    ...postStore(db),
    ...commentStore(db),
    ...voteStore(db),
    ...moderationStore(db),
    ...searchStore(db),
    ...transferStore(db),
  };
}
