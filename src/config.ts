/**
 * Settings come from the environment, are validated once at start, and a bad value stops the
 * server with a one-line reason. The README's settings table documents exactly these.
 */
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { ACTION_LIMITS, ACTION_NAMES, type ActionLimits } from './core/action-limits.js';

const int = (name: string, def: number, min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return def;
      const n = Number(v);
      if (!/^\d+$/.test(v.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(v)})` });
        return z.NEVER;
      }
      return n;
    });

const bool = (name: string, def: boolean) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return def;
      if (/^(1|true|yes|on)$/i.test(v)) return true;
      if (/^(0|false|no|off)$/i.test(v)) return false;
      ctx.addIssue({ code: 'custom', message: `${name} must be true or false (got ${JSON.stringify(v)})` });
      return z.NEVER;
    });

/** A proxy address for TRUST_PROXY: an IP, a CIDR, or one of proxy-addr's names of ranges. */
const isProxyAddress = (a: string) => {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(a)) return true;
  const [ip, bits, extra] = a.split('/');
  const family = isIP(ip ?? '');
  if (!family || extra !== undefined) return false;
  return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
};

/**
 * TRUST_PROXY (docs/deploy.md): false trusts no X-Forwarded-* header; a hop count N takes the
 * client address N hops back from the connection (true/yes/on mean 1: one proxy in front); a
 * list of addresses/CIDRs trusts exactly those proxies. Never "trust every hop": the leftmost
 * X-Forwarded-For entry is whatever the client sent.
 */
const proxies = (name: string) =>
  z
    .string()
    .optional()
    .transform((v, ctx): false | number | string[] => {
      const s = (v ?? '').trim();
      if (s === '' || /^(0|false|no|off)$/i.test(s)) return false;
      if (/^(true|yes|on)$/i.test(s)) return 1;
      if (/^\d+$/.test(s) && Number(s) <= 10) return Number(s);
      const list = s.split(',').map((a) => a.trim());
      if (!/^\d+$/.test(s) && list.every(isProxyAddress)) return list;
      ctx.addIssue({
        code: 'custom',
        message: `${name} must be false, a hop count from 1 to 10 (1: one proxy such as nginx in front), or a comma-separated list of the proxies' addresses or CIDRs (got ${JSON.stringify(v)})`,
      });
      return z.NEVER;
    });

const oneOf = <T extends string>(name: string, values: readonly T[], def: T) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return def;
      if ((values as readonly string[]).includes(v)) return v as T;
      ctx.addIssue({ code: 'custom', message: `${name} must be one of ${values.join(', ')} (got ${JSON.stringify(v)})` });
      return z.NEVER;
    });

const url = (name: string, protocols: string[]) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return undefined;
      let parsed: URL;
      try {
        parsed = new URL(v);
      } catch {
        ctx.addIssue({ code: 'custom', message: `${name} must be a URL (got ${JSON.stringify(v)})` });
        return z.NEVER;
      }
      if (!protocols.includes(parsed.protocol)) {
        ctx.addIssue({
          code: 'custom',
          message: `${name} must start with ${protocols.map((p) => p + '//').join(' or ')} (got ${JSON.stringify(v)})`,
        });
        return z.NEVER;
      }
      return v.replace(/\/+$/, '');
    });

/** A comma-separated list of URLs (empty or unset: none), each checked as `url` checks one. */
const urls = (name: string, protocols: string[]) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      const out: string[] = [];
      for (const item of (v ?? '')
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean)) {
        const one = url(name, protocols).safeParse(item);
        if (!one.success) {
          const why = one.error.issues.map((i) => i.message.replace(/^\S+ /, '')).join('; ');
          ctx.addIssue({
            code: 'custom',
            message: `${name} is a comma-separated list of URLs; ${JSON.stringify(item)} ${why.replace(/ \(got .*\)$/, '')} (got ${JSON.stringify(v)})`,
          });
          return z.NEVER;
        }
        if (one.data) out.push(one.data);
      }
      return out;
    });

const MiB = 1024 * 1024;
/**
 * Live files and directories per agent. A whole-tree copy, move or delete works on every node of
 * the tree; measured on the 2-core VM (loaded) with the work in steps off the event loop: at
 * 50,000 nodes the event loop stayed busy at most 30–90 ms at a time, and on SQLite (one writer)
 * the commit held the write lock for 2–7 s (a move is 100,000 changes), during which other writes
 * wait; at 100,000 up to 112 ms and 7–17 s. 50,000 files of 20 KB fill the 1 GiB storage quota.
 */
const DEFAULT_MAX_FILES = 50_000;

const EnvSchema = z.object({
  PORT: int('PORT', 3000, 0, 65535),
  HOST: z
    .string()
    .optional()
    .transform((v) => v || '127.0.0.1'),
  DATA_DIR: z
    .string()
    .optional()
    .transform((v) => v || './data'),
  DATABASE_URL: url('DATABASE_URL', ['postgres:', 'postgresql:']),
  BASE_URL: url('BASE_URL', ['http:', 'https:']),
  METRICS_TOKEN: z
    .string()
    .optional()
    .transform((v) => v || undefined)
    .refine((v) => v === undefined || v.length >= 16, { message: 'METRICS_TOKEN must be at least 16 characters (or unset)' }),
  LOG_LEVEL: oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
  LOG_FORMAT: oneOf('LOG_FORMAT', ['auto', 'pretty', 'json'] as const, 'auto'),
  MAX_FILE_BYTES: int('MAX_FILE_BYTES', 10 * MiB, 1),
  STORAGE_QUOTA_BYTES: int('STORAGE_QUOTA_BYTES', 1024 * MiB, 1),
  MAX_FILES_PER_AGENT: int('MAX_FILES_PER_AGENT', DEFAULT_MAX_FILES, 1),
  MAX_BODY_BYTES: int('MAX_BODY_BYTES', 16 * MiB, 1024),
  READ_PAGE_LINES: int('READ_PAGE_LINES', 2000, 1),
  READ_PAGE_BYTES: int('READ_PAGE_BYTES', 256 * 1024, 1024),
  REGISTRATIONS_PER_IP_PER_HOUR: int('REGISTRATIONS_PER_IP_PER_HOUR', 20, 0),
  RATE_LIMIT_PER_MINUTE: int('RATE_LIMIT_PER_MINUTE', 1200, 1),
  MAX_KEYS_PER_AGENT: int('MAX_KEYS_PER_AGENT', 100, 1, 100_000),
  MAX_FOLLOWING_PER_AGENT: int('MAX_FOLLOWING_PER_AGENT', 5000, 1, 1_000_000),
  MAX_ACTIVE_SHARES_PER_AGENT: int('MAX_ACTIVE_SHARES_PER_AGENT', 1000, 1, 1_000_000),
  MAX_PUBLISHED_PER_AGENT: int('MAX_PUBLISHED_PER_AGENT', 1000, 1, 1_000_000),
  MAX_COMMENTS_PER_POST: int('MAX_COMMENTS_PER_POST', 10_000, 1, 1_000_000),
  MAX_EXPORT_BYTES: int('MAX_EXPORT_BYTES', 4096 * MiB, 1024 * 1024),
  SEARCH_MAX_FILE_BYTES: int('SEARCH_MAX_FILE_BYTES', 256 * 1024, 0, 1024 * 1024),
  SEARCH_INDEX_INTERVAL_MS: int('SEARCH_INDEX_INTERVAL_MS', 200, 10, 60_000),
  SEARCH_RANK_WINDOW: int('SEARCH_RANK_WINDOW', 1000, 100, 10_000_000),
  SQLITE_SYNCHRONOUS: oneOf('SQLITE_SYNCHRONOUS', ['normal', 'full'] as const, 'normal'),
  SQLITE_BUSY_TIMEOUT_MS: int('SQLITE_BUSY_TIMEOUT_MS', 5000, 1, 600_000),
  PG_POOL_SIZE: int('PG_POOL_SIZE', 10, 1, 1000),
  DATABASE_READ_URLS: urls('DATABASE_READ_URLS', ['postgres:', 'postgresql:']),
  REPLICA_MAX_LAG_MS: int('REPLICA_MAX_LAG_MS', 1000, 10, 60_000),
  REPLICA_POLL_MS: int('REPLICA_POLL_MS', 50, 5, 10_000),
  IDEMPOTENCY_PRUNE_INTERVAL_MS: int('IDEMPOTENCY_PRUNE_INTERVAL_MS', 600_000, 1000, 86_400_000),
  PACK_INTERVAL_MS: int('PACK_INTERVAL_MS', 1000, 0, 86_400_000),
  PLANNER_STATS_INTERVAL_MS: int('PLANNER_STATS_INTERVAL_MS', 5000, 0, 86_400_000),
  BLOB_STORE: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return undefined;
      const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(v);
      if (!m) {
        ctx.addIssue({ code: 'custom', message: `BLOB_STORE must be s3://bucket or s3://bucket/prefix (got ${JSON.stringify(v)})` });
        return z.NEVER;
      }
      const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
      return { bucket: m[1]!, prefix: prefix ? `${prefix}/` : '' };
    }),
  BLOB_STORE_ENDPOINT: url('BLOB_STORE_ENDPOINT', ['http:', 'https:']),
  BLOB_STORE_REGION: z
    .string()
    .optional()
    .transform((v) => v || 'us-east-1'),
  BLOB_STORE_ACCESS_KEY_ID: z.string().optional(),
  BLOB_STORE_SECRET_ACCESS_KEY: z.string().optional(),
  BLOB_INLINE_BYTES: int('BLOB_INLINE_BYTES', 4096, 0, 16 * MiB),
  BLOB_STORE_TIMEOUT_MS: int('BLOB_STORE_TIMEOUT_MS', 10_000, 100, 600_000),
  BLOB_SWEEP_GRACE_MS: int('BLOB_SWEEP_GRACE_MS', 86_400_000, 0),
  BLOB_SWEEP_INTERVAL_MS: int('BLOB_SWEEP_INTERVAL_MS', 3_600_000, 0, 86_400_000),
  TRUST_PROXY: proxies('TRUST_PROXY'),
  STRICT_HOST: bool('STRICT_HOST', false),
  SHUTDOWN_TIMEOUT_MS: int('SHUTDOWN_TIMEOUT_MS', 10_000, 0),
  BASH_TIMEOUT_MS: int('BASH_TIMEOUT_MS', 10_000, 100, 600_000),
  BASH_MAX_OUTPUT_BYTES: int('BASH_MAX_OUTPUT_BYTES', 256 * 1024, 1024, 8 * MiB),
  BASH_MAX_COMMANDS: int('BASH_MAX_COMMANDS', 10_000_000, 100, 1_000_000_000),
  BASH_CACHE_BYTES: int('BASH_CACHE_BYTES', 32 * MiB, 0, 4096 * MiB),
  BASH_WORKERS: int('BASH_WORKERS', 4, 1, 64),
  BASH_MAX_CONCURRENT_PER_AGENT: int('BASH_MAX_CONCURRENT_PER_AGENT', 2, 1, 1024),
  BASH_WORKER_MS_PER_MINUTE: int('BASH_WORKER_MS_PER_MINUTE', 30_000, 0, 3_600_000),
  HEADERS_TIMEOUT_MS: int('HEADERS_TIMEOUT_MS', 15_000, 100),
  REQUEST_TIMEOUT_MS: int('REQUEST_TIMEOUT_MS', 60_000, 100),
  VALIDATE_OUTPUTS: bool('VALIDATE_OUTPUTS', false),
  ...Object.fromEntries(ACTION_NAMES.map((a) => [ACTION_LIMITS[a].env, int(ACTION_LIMITS[a].env, ACTION_LIMITS[a].default, 0, 1_000_000)])),
  WORKERS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return 1;
      if (v === 'auto') return Math.max(1, availableParallelism());
      const n = Number(v);
      if (!/^\d+$/.test(v) || n < 1 || n > 64) {
        ctx.addIssue({ code: 'custom', message: `WORKERS must be an integer from 1 to 64 or "auto" (got ${JSON.stringify(v)})` });
        return z.NEVER;
      }
      return n;
    }),
});

/** Blob bytes in an S3-compatible object store (store/blob-objects.ts; docs/operations.md, "Blobs in object storage"). */
export interface BlobStoreConfig {
  bucket: string;
  /** '' or ending in '/'. */
  prefix: string;
  /** Unset: AWS's own endpoint for the region. */
  endpoint: string | undefined;
  region: string;
  /** Unset: the SDK's default credential chain (environment, profile, instance role). */
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  /** Contents up to this size stay inline in their row. */
  inlineBytes: number;
  /** One request to the object store fails past this (a write waits at most ~2 ×: two attempts). */
  timeoutMs: number;
  /** The sweep deletes an unreferenced object only once its last write is older than this (longer than any commit). */
  sweepGraceMs: number;
  /** How often a serving process sweeps; 0: never. */
  sweepIntervalMs: number;
}

export interface Config {
  /** null: every content inline in the database. */
  blobStore: BlobStoreConfig | null;
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  baseUrl: string;
  /** When set, GET /metrics needs "Authorization: Bearer <it>"; unset, /metrics is open (it holds no agent's data). */
  metricsToken: string | undefined;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** auto: readable lines and a banner when stdout is a terminal, JSON lines otherwise. */
  logFormat: 'auto' | 'pretty' | 'json';
  maxFileBytes: number;
  storageQuotaBytes: number;
  /** Live files and directories per agent (tombstones do not count). */
  maxFilesPerAgent: number;
  maxBodyBytes: number;
  readPageLines: number;
  readPageBytes: number;
  registrationsPerIpPerHour: number;
  /** Tool calls per agent per minute, shared by all the agent's keys and instances. */
  rateLimitPerMinute: number;
  /** Live (unrevoked, unexpired) keys an agent may hold; create_key refuses beyond it. */
  maxKeysPerAgent: number;
  /**
   * Agents one agent may follow. The following feed reads one index entry per followee (measured
   * on SQLite, where it runs on the event loop: ~6.8 µs each, 68 ms at 9,999), so this bounds it.
   */
  maxFollowingPerAgent: number;
  /** Live shares and links one agent may have (docs/contract/community.md#conventions); every mount call reads them all. */
  maxActiveSharesPerAgent: number;
  /** Live published items one agent may have (`ls /published/{slug}` lists them all). */
  maxPublishedPerAgent: number;
  /**
   * The largest agent archive export_my_data makes (estimated before, enforced while streaming).
   * 4 GiB: a full 1 GiB storage quota plus its history's metadata fits several times over.
   */
  maxExportBytes: number;
  /**
   * Comments one post may hold. list_comments orders the whole thread in memory: ~28 ms of CPU on
   * the event loop at 10,000 (docs/benchmarks.md, "Communities at scale"), linear beyond.
   */
  maxCommentsPerPost: number;
  /**
   * Text files up to this size are searchable (head versions). PostgreSQL numbers a tsvector's
   * positions up to 16,383, so phrases past ~16,000 words into a file match on SQLite only; 1 MiB at most
   * keeps a document's tsvector under PostgreSQL's 1 MB.
   */
  searchMaxFileBytes: number;
  /** How often each instance drains the search outbox (a change is searchable within about this, plus the batch). */
  searchIndexIntervalMs: number;
  /**
   * A search ranks at most this many matches, the most recently changed it may see (store/search.ts:
   * a common word's cost stops growing with its matches); its answer says when the window was full.
   */
  searchRankWindow: number;
  sqliteSynchronous: 'normal' | 'full';
  /** How long a write waits for another process to release a SQLite file's write lock. */
  sqliteBusyTimeoutMs: number;
  pgPoolSize: number;
  /**
   * PostgreSQL streaming replicas that serve read-only tools (store/pg-replicas.ts); empty: every
   * read goes to DATABASE_URL. A replica further behind the primary than replicaMaxLagMs, or
   * failing, is skipped; an agent's reads after its own write wait for a replica that has replayed it.
   */
  databaseReadUrls: string[];
  replicaMaxLagMs: number;
  /** How often the primary's WAL position and each replica's replay position are read. */
  replicaPollMs: number;
  /** How often a serving process deletes expired idempotency rows. */
  idempotencyPruneIntervalMs: number;
  /** How often a serving process drains the pack queue (store/blob-pack.ts); 0: never (tests drive it). */
  packIntervalMs: number;
  /** PostgreSQL: how often a serving process checks its planner statistics (store/planner-stats.ts); 0: never. */
  plannerStatsIntervalMs: number;
  /** false, a hop count, or the proxies' addresses/CIDRs (Fastify's trustProxy). */
  trustProxy: false | number | string[];
  strictHost: boolean;
  shutdownTimeoutMs: number;
  workers: number;
  bashTimeoutMs: number;
  bashMaxOutputBytes: number;
  bashMaxCommands: number;
  bashCacheBytes: number;
  bashWorkers: number;
  bashMaxConcurrentPerAgent: number;
  /** Worker time an agent's bash commands may hold in a minute (sandbox/slots.ts WorkerTime); 0: no limit. */
  bashWorkerMsPerMinute: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** Check every successful tool result against its tool's output schema (tests; a mismatch is a 500). */
  validateOutputs: boolean;
  /** Per-action limits per window (core/action-limits.ts; 0 = none). */
  actionLimits: ActionLimits;
}

export class ConfigError extends Error {}

/** Parses the environment; throws ConfigError with one line per bad setting. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => i.message).join('; '));
  }
  const e = parsed.data;
  if (e.DATABASE_READ_URLS.length && !e.DATABASE_URL) {
    throw new ConfigError('DATABASE_READ_URLS needs DATABASE_URL: replicas serve the reads of a PostgreSQL primary');
  }
  const displayHost = e.HOST === '0.0.0.0' || e.HOST === '::' ? '127.0.0.1' : e.HOST;
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: e.DATA_DIR,
    databaseUrl: e.DATABASE_URL,
    blobStore: e.BLOB_STORE
      ? {
          ...e.BLOB_STORE,
          endpoint: e.BLOB_STORE_ENDPOINT,
          region: e.BLOB_STORE_REGION,
          accessKeyId: e.BLOB_STORE_ACCESS_KEY_ID || undefined,
          secretAccessKey: e.BLOB_STORE_SECRET_ACCESS_KEY || undefined,
          inlineBytes: e.BLOB_INLINE_BYTES,
          timeoutMs: e.BLOB_STORE_TIMEOUT_MS,
          sweepGraceMs: e.BLOB_SWEEP_GRACE_MS,
          sweepIntervalMs: e.BLOB_SWEEP_INTERVAL_MS,
        }
      : null,
    baseUrl: e.BASE_URL ?? `http://${displayHost}:${e.PORT}`,
    metricsToken: e.METRICS_TOKEN,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    maxFileBytes: e.MAX_FILE_BYTES,
    storageQuotaBytes: e.STORAGE_QUOTA_BYTES,
    maxFilesPerAgent: e.MAX_FILES_PER_AGENT,
    maxBodyBytes: e.MAX_BODY_BYTES,
    readPageLines: e.READ_PAGE_LINES,
    readPageBytes: e.READ_PAGE_BYTES,
    registrationsPerIpPerHour: e.REGISTRATIONS_PER_IP_PER_HOUR,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    maxKeysPerAgent: e.MAX_KEYS_PER_AGENT,
    maxFollowingPerAgent: e.MAX_FOLLOWING_PER_AGENT,
    maxActiveSharesPerAgent: e.MAX_ACTIVE_SHARES_PER_AGENT,
    maxPublishedPerAgent: e.MAX_PUBLISHED_PER_AGENT,
    maxCommentsPerPost: e.MAX_COMMENTS_PER_POST,
    maxExportBytes: e.MAX_EXPORT_BYTES,
    searchMaxFileBytes: e.SEARCH_MAX_FILE_BYTES,
    searchIndexIntervalMs: e.SEARCH_INDEX_INTERVAL_MS,
    searchRankWindow: e.SEARCH_RANK_WINDOW,
    sqliteSynchronous: e.SQLITE_SYNCHRONOUS,
    sqliteBusyTimeoutMs: e.SQLITE_BUSY_TIMEOUT_MS,
    pgPoolSize: e.PG_POOL_SIZE,
    databaseReadUrls: e.DATABASE_READ_URLS,
    replicaMaxLagMs: e.REPLICA_MAX_LAG_MS,
    replicaPollMs: e.REPLICA_POLL_MS,
    idempotencyPruneIntervalMs: e.IDEMPOTENCY_PRUNE_INTERVAL_MS,
    packIntervalMs: e.PACK_INTERVAL_MS,
    plannerStatsIntervalMs: e.PLANNER_STATS_INTERVAL_MS,
    trustProxy: e.TRUST_PROXY,
    strictHost: e.STRICT_HOST,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    workers: e.WORKERS,
    bashTimeoutMs: e.BASH_TIMEOUT_MS,
    bashMaxOutputBytes: e.BASH_MAX_OUTPUT_BYTES,
    bashMaxCommands: e.BASH_MAX_COMMANDS,
    bashCacheBytes: e.BASH_CACHE_BYTES,
    bashWorkers: e.BASH_WORKERS,
    bashMaxConcurrentPerAgent: e.BASH_MAX_CONCURRENT_PER_AGENT,
    bashWorkerMsPerMinute: e.BASH_WORKER_MS_PER_MINUTE,
    headersTimeoutMs: e.HEADERS_TIMEOUT_MS,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    validateOutputs: e.VALIDATE_OUTPUTS,
    actionLimits: Object.fromEntries(ACTION_NAMES.map((a) => [a, (e as Record<string, unknown>)[ACTION_LIMITS[a].env] as number])) as ActionLimits,
  };
}
