/**
 * BlobObjects (store/blob-objects.ts) on an S3-compatible object store, through the AWS SDK v3
 * client with path-style requests, which any S3 endpoint serves (AWS, MinIO, Ceph's radosgw,
 * OpenStack Swift's s3api, which the tests run). The SDK is loaded only when BLOB_STORE is set.
 * Every failure but "no such object" is ObjectStoreUnavailable (retryable); a request slower than
 * BLOB_STORE_TIMEOUT_MS fails rather than holding a write.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import type { BlobStoreConfig } from '../config.js';
import { ObjectStoreUnavailable, type BlobObjects } from './blob-objects.js';

/** A store that does not accept the connection fails the request this soon (BLOB_STORE_TIMEOUT_MS bounds the rest). */
const CONNECT_TIMEOUT_MS = 2000;
/** Keys per listing page (S3's maximum). */
const LIST_PAGE = 1000;

type Sdk = typeof import('@aws-sdk/client-s3');

const hexOf = (hash: string) => hash.slice(hash.indexOf(':') + 1);

function statusOf(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}

function isNotFound(err: unknown): boolean {
  const name = (err as { name?: string }).name;
  return name === 'NoSuchKey' || name === 'NotFound' || statusOf(err) === 404;
}

function unavailable(op: string, err: unknown): ObjectStoreUnavailable {
  const e = err as { name?: string; code?: string; message?: string };
  const status = statusOf(err);
  return new ObjectStoreUnavailable(op, [e.code ?? e.name, status ? `HTTP ${status}` : '', e.message].filter(Boolean).join(': '));
}

interface Ready {
  sdk: Sdk;
  client: S3Client;
}

/** Connects on first use (the SDK loaded, the bucket there or created); a failed start is tried again by the next call. */
function connect(config: BlobStoreConfig): { ready: () => Promise<Ready>; close: () => void } {
  let ready: Promise<Ready> | null = null;
  const start = async (): Promise<Ready> => {
    const sdk: Sdk = await import('@aws-sdk/client-s3');
    const client: S3Client = new sdk.S3Client({
      endpoint: config.endpoint,
      region: config.region,
      forcePathStyle: true,
      maxAttempts: 2,
      // Without throwOnRequestTimeout the SDK only logs a request past its timeout and keeps waiting
      // (found by the paused-Swift test: the write hung).
      requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, requestTimeout: config.timeoutMs, throwOnRequestTimeout: true },
      ...(config.accessKeyId && config.secretAccessKey
        ? { credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey } }
        : {}),
    });
    const Bucket = config.bucket;
    try {
      try {
        await client.send(new sdk.HeadBucketCommand({ Bucket }));
      } catch (err) {
        if (!isNotFound(err)) throw err;
        await client.send(new sdk.CreateBucketCommand({ Bucket }));
      }
    } catch (err) {
      client.destroy();
      throw unavailable(`reach bucket ${Bucket}`, err);
    }
    return { sdk, client };
  };
  return {
    ready: () => {
      ready ??= start().catch((err) => {
        ready = null;
        throw err;
      });
      return ready;
    },
    close: () =>
      void ready?.then(
        ({ client }) => client.destroy(),
        () => undefined,
      ),
  };
}

export function openS3Objects(config: BlobStoreConfig): BlobObjects {
  const { ready, close } = connect(config);
  const Bucket = config.bucket;
  const key = (agentId: string, hash: string) => `${config.prefix}${agentId}/${hexOf(hash)}`;
  const send = async <T>(op: string, run: (r: Ready) => Promise<T>): Promise<T> => {
    const r = await ready();
    try {
      return await run(r);
    } catch (err) {
      throw unavailable(op, err);
    }
  };
  const read = async (op: string, agentId: string, hash: string, range?: string): Promise<Buffer | null> => {
    const { sdk, client } = await ready();
    try {
      const r = await client.send(new sdk.GetObjectCommand({ Bucket, Key: key(agentId, hash), Range: range }));
      return Buffer.from(await r.Body!.transformToByteArray());
    } catch (err) {
      if (isNotFound(err)) return null;
      throw unavailable(op, err);
    }
  };
  return {
    inlineBytes: config.inlineBytes,
    location: `s3://${Bucket}/${config.prefix}`,
    put: (agentId, hash, bytes) =>
      send('store a content', ({ sdk, client }) =>
        client.send(new sdk.PutObjectCommand({ Bucket, Key: key(agentId, hash), Body: bytes, ContentLength: bytes.length })),
      ).then(() => undefined),
    get: (agentId, hash) => read('read a content', agentId, hash),
    getRange: (agentId, hash, start, end) =>
      end <= start ? Promise.resolve(Buffer.alloc(0)) : read('read part of a content', agentId, hash, `bytes=${start}-${end - 1}`),
    delete: (agentId, hash) =>
      send('delete a content', ({ sdk, client }) => client.send(new sdk.DeleteObjectCommand({ Bucket, Key: key(agentId, hash) }))).then(
        () => undefined,
      ),
    async lastModified(agentId, hash) {
      const { sdk, client } = await ready();
      try {
        const r = await client.send(new sdk.HeadObjectCommand({ Bucket, Key: key(agentId, hash) }));
        return r.LastModified ? r.LastModified.getTime() : 0;
      } catch (err) {
        if (isNotFound(err)) return null;
        throw unavailable('look up a content', err);
      }
    },
    async *list(agentId) {
      const Prefix = `${config.prefix}${agentId}/`;
      let ContinuationToken: string | undefined;
      do {
        const page = await send('list contents', ({ sdk, client }) =>
          client.send(new sdk.ListObjectsV2Command({ Bucket, Prefix, ContinuationToken, MaxKeys: LIST_PAGE })),
        );
        for (const o of page.Contents ?? []) yield { hash: `sha256:${o.Key!.slice(Prefix.length)}`, lastModifiedMs: o.LastModified?.getTime() ?? 0 };
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken);
    },
    async *agents() {
      const Prefix = config.prefix;
      let ContinuationToken: string | undefined;
      do {
        const page = await send('list agents', ({ sdk, client }) =>
          client.send(new sdk.ListObjectsV2Command({ Bucket, Prefix, Delimiter: '/', ContinuationToken, MaxKeys: LIST_PAGE })),
        );
        for (const p of page.CommonPrefixes ?? []) yield p.Prefix!.slice(Prefix.length, -1);
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken);
    },
    close,
  };
}
