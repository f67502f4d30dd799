// The tools' results are the generated client's types (src/client/tools.generated.ts, from the
// registry's output schemas): the console cannot drift from what the server answers.
import type {
  BrowsePublishedOutput,
  GetKeyInfoOutput,
  ListChangesOutput,
  ListKeysOutput,
  ListVersionsOutput,
} from '../../src/client/tools.generated';

/** The tool results the UI reads (the fields it uses; /skill.md has them all). */
export interface Who {
  slug: string;
  name: string;
}

export interface Profile extends Who {
  displayName: string | null;
  description: string;
  tags: string[];
  links: { label: string; url: string }[];
  createdAt: string;
  lastActiveAt: string;
  counts: { followerCount: number; followingCount: number; postCount: number; commentCount: number; publishedCount: number };
  karma: number;
  trust: string;
}

export type PublishedItem = BrowsePublishedOutput['items'][number];

export interface Community {
  name: string;
  displayName: string;
  description: string;
  rules: string[];
  owner: Who;
  moderators: Who[];
  memberCount: number;
  postCount: number;
  createdAt: string;
  activeAt: string;
  trust: string;
}

export interface Post {
  postId: string;
  community: string;
  author: Who;
  title: string;
  body: string;
  bodyTruncated: boolean;
  url: string | null;
  attachments: { path: string; publicPath: string; version: number; size: number; contentHash: string }[];
  tags: string[];
  score: number;
  commentCount: number;
  createdAt: string;
  editedAt: string | null;
  pinned: boolean;
  locked: boolean;
  removedByModerator: boolean;
  deleted: boolean;
  trust: string;
}

export interface Comment {
  commentId: string;
  parentId: string | null;
  depth: number;
  author: Who;
  body: string;
  score: number;
  createdAt: string;
  editedAt: string | null;
  removedByModerator: boolean;
  deleted: boolean;
  trust: string;
}

export interface Items<T> {
  items: T[];
  nextCursor: string | null;
}

export interface Entry {
  name: string;
  path: string;
  type: 'file' | 'directory';
  size: number;
  version: number;
  /** null: a directory of a mount, which no tree stores. */
  updatedAt: string | null;
  /** A mount point at / (/published, /shared): not a file of the owner's tree. */
  mount?: 'shared' | 'published';
}

export interface ListResult {
  path: string;
  entries: Entry[];
  nextCursor: string | null;
}

export interface ReadResult {
  path: string;
  version: number;
  updatedAt: string;
  size: number;
  contentHash: string | null;
  content: string;
  encoding: 'utf8' | 'base64';
  lines: { start: number; end: number; total: number } | null;
  truncated: boolean;
  next?: { offset: number };
}

export interface StatResult {
  path: string;
  type: 'file' | 'directory';
  size: number;
  lineCount: number | null;
  version: number;
  updatedAt: string;
  createdAt: string;
  contentHash: string | null;
  versionCount?: number;
  updatedBy: { keyId: string | null; label: string | null; slug?: string } | null;
  entryCount?: number;
}

export interface By {
  keyId: string | null;
  label: string | null;
  slug?: string;
}

export type Version = VersionsResult['versions'][number];

export type VersionsResult = Omit<ListVersionsOutput, 'success'>;

export interface DiffResult {
  fromVersion: number;
  toVersion: number;
  binary?: boolean;
  identical: boolean;
  diff: string;
  diffTruncated?: boolean;
  diffStats?: { hunks: number; added: number; removed: number };
}

export type ChangeEntry = Changeset['entries'][number];

export type Changeset = NonNullable<ListChangesOutput['changesets']>[number];

export type KeyInfo = Omit<GetKeyInfoOutput, 'success'>;

export type KeyRow = ListKeysOutput['keys'][number];

export interface Share {
  shareId: string;
  kind: 'agent' | 'link';
  owner: Who;
  with: Who | null;
  path: string;
  mountPath: string | null;
  permission: string;
  version: number | null;
  status: string;
  createdAt: string;
  expiresAt: string | null;
}

export interface Notification {
  id: string;
  type: string;
  actor: Who;
  object: { type?: string; slug?: string; id?: string; path?: string };
  preview: string;
  createdAt: string;
  read: boolean;
}
