import { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { OnModuleDestroy } from '@nestjs/common';
import type { StorageConfig } from '../../config/app-config';
import { forEachConcurrent } from './concurrency';
import {
  assertDisjointPrefixes,
  assertValidKey,
  ByteRange,
  clampRange,
  ContentListing,
  ContentObject,
  ContentStat,
  ContentStore,
  contentTypeFor,
  normalizePrefix,
  PutOptions,
  RangeNotSatisfiableError,
} from './content-store';

export type S3StorageConfig = Extract<StorageConfig, { kind: 's3' }>;

/** Parts of a multipart upload; at most PART_SIZE * UPLOAD_QUEUE bytes of one upload are in memory at a time. */
const PART_SIZE = 8 * 1024 * 1024;
const UPLOAD_QUEUE = 4;
/** S3's limit for a single CopyObject; larger objects are copied by streaming them through a multipart upload. */
const MAX_COPY_OBJECT_BYTES = 5 * 1024 * 1024 * 1024;
const COPY_CONCURRENCY = 8;
const DELETE_BATCH = 1000;

/**
 * Content in an S3-compatible bucket (AWS S3, MinIO, Ceph RGW, Garage, R2, …), optionally under a key prefix.
 * Streams go through multipart uploads; listing follows continuation tokens; GET supports byte ranges.
 */
export class S3ContentStore extends ContentStore implements OnModuleDestroy {
  readonly kind = 's3';
  readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(config: S3StorageConfig, client?: S3Client) {
    super();
    this.bucket = config.bucket;
    this.prefix = config.prefix;
    this.client =
      client ??
      new S3Client({
        region: config.region,
        endpoint: config.endpoint ?? undefined,
        forcePathStyle: config.forcePathStyle,
        credentials: config.credentials ?? undefined,
        // Only send/verify the newer CRC checksums where S3 requires them: many S3-compatible servers reject them.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
        maxAttempts: 4,
      });
  }

  onModuleDestroy(): void {
    this.client.destroy();
  }

  async put(key: string, body: Readable | Buffer, options?: PutOptions): Promise<void> {
    const Key = this.objectKey(key);
    const ContentType = options?.contentType ?? contentTypeFor(key);
    if (Buffer.isBuffer(body)) {
      await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key, Body: body, ContentType, ContentLength: body.length }));
      return;
    }
    // Small bodies become one PutObject, larger ones a multipart upload; a failed source aborts the upload
    // (no parts left behind) and is what the caller sees, and a failed upload releases the source.
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key, Body: body, ContentType },
      partSize: PART_SIZE,
      queueSize: UPLOAD_QUEUE,
      leavePartsOnError: false,
    });
    let sourceError: unknown = null;
    const onSourceError = (error: unknown) => {
      sourceError ??= error;
      upload.abort().catch(() => undefined);
    };
    body.once('error', onSourceError);
    try {
      await upload.done();
    } catch (error) {
      if (!body.destroyed) body.destroy();
      throw sourceError ?? error;
    } finally {
      body.off('error', onSourceError);
    }
  }

  async get(key: string, range?: ByteRange): Promise<ContentObject | null> {
    const Key = this.objectKey(key);
    if (range) clampRange(key, range, Number.MAX_SAFE_INTEGER); // validates the numbers only
    try {
      const res = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key, Range: range ? `bytes=${range.start}-${range.end ?? ''}` : undefined }),
      );
      const stream = res.Body as Readable;
      const contentLength = res.ContentLength ?? 0;
      let size = contentLength;
      let bounds: { start: number; end: number } | undefined;
      if (range) {
        const match = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(res.ContentRange ?? '');
        if (match) {
          bounds = { start: Number(match[1]), end: Number(match[2]) };
          if (match[3] !== '*') size = Number(match[3]);
        } else {
          // The server ignored the Range header and sent everything (allowed by HTTP): cut the range out ourselves.
          return sliceOf(key, stream, range, contentLength, res);
        }
      }
      return {
        stream,
        size,
        contentLength,
        range: bounds,
        contentType: res.ContentType ?? contentTypeFor(key),
        etag: res.ETag ?? '""',
        lastModified: res.LastModified ?? new Date(0),
      };
    } catch (error) {
      if (isNotFound(error)) return null;
      if (range && httpStatus(error) === 416) {
        const info = await this.stat(key);
        if (!info) return null;
        throw new RangeNotSatisfiableError(key, info.size);
      }
      throw error;
    }
  }

  async stat(key: string): Promise<ContentStat | null> {
    try {
      const res = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
      return {
        size: res.ContentLength ?? 0,
        contentType: res.ContentType ?? contentTypeFor(key),
        etag: res.ETag ?? '""',
        lastModified: res.LastModified ?? new Date(0),
      };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async *list(prefix: string): AsyncIterable<ContentListing> {
    const folder = normalizePrefix(prefix, true);
    // Paged with ListObjects (v1) and Marker = last key seen: supported by every S3 implementation, where
    // ListObjectsV2 continuation tokens are not (s3rver, for one, cannot create them on OpenSSL 3).
    let Marker: string | undefined;
    for (;;) {
      const page = await this.client.send(new ListObjectsCommand({ Bucket: this.bucket, Prefix: this.prefix + folder, Marker, MaxKeys: 1000 }));
      const contents = page.Contents ?? [];
      for (const object of contents) {
        if (!object.Key || object.Key.endsWith('/')) continue; // "folder" placeholders made by consoles
        yield { key: object.Key.slice(this.prefix.length), size: object.Size ?? 0, modified: object.LastModified ?? new Date(0) };
      }
      const last = page.NextMarker ?? contents[contents.length - 1]?.Key;
      if (!page.IsTruncated || last === undefined || last === Marker) return;
      Marker = last;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
  }

  async deletePrefix(prefix: string): Promise<void> {
    const folder = normalizePrefix(prefix);
    let batch: string[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const res = await this.client.send(
        new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }),
      );
      batch = [];
      const failed = res.Errors ?? [];
      if (failed.length > 0) {
        throw new Error(`S3 refused to delete ${failed.length} object(s), e.g. ${failed[0].Key}: ${failed[0].Code} ${failed[0].Message}`);
      }
    };
    for await (const item of this.list(folder)) {
      batch.push(this.prefix + item.key);
      if (batch.length >= DELETE_BATCH) await flush();
    }
    await flush();
  }

  async copyPrefix(from: string, to: string): Promise<number> {
    const source = normalizePrefix(from);
    const target = normalizePrefix(to);
    assertDisjointPrefixes(source, target);
    let copied = 0;
    await forEachConcurrent(this.list(source), COPY_CONCURRENCY, async (item) => {
      const destination = target + item.key.slice(source.length);
      if (item.size > MAX_COPY_OBJECT_BYTES) {
        const object = await this.get(item.key);
        if (!object) return; // deleted meanwhile
        await this.put(destination, object.stream, { contentType: object.contentType });
      } else {
        await this.client.send(
          new CopyObjectCommand({
            Bucket: this.bucket,
            Key: this.objectKey(destination),
            CopySource: `${this.bucket}/${encodeKeyForCopy(this.objectKey(item.key))}`,
            MetadataDirective: 'COPY',
          }),
        );
      }
      copied++;
    });
    return copied;
  }

  async check(): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
  }

  private objectKey(key: string): string {
    return this.prefix + assertValidKey(key);
  }
}

/** The inclusive `range` of a whole-object response body, for servers that ignore Range headers. */
function sliceOf(
  key: string,
  source: Readable,
  range: ByteRange,
  size: number,
  res: { ContentType?: string; ETag?: string; LastModified?: Date },
): ContentObject {
  let bounds: { start: number; end: number };
  try {
    bounds = clampRange(key, range, size);
  } catch (error) {
    source.destroy();
    throw error;
  }
  let position = 0;
  const sliced = Readable.from(
    (async function* () {
      for await (const chunk of source as AsyncIterable<Buffer>) {
        const chunkStart = position;
        position += chunk.length;
        if (position <= bounds.start) continue;
        yield chunk.subarray(Math.max(0, bounds.start - chunkStart), Math.min(chunk.length, bounds.end + 1 - chunkStart));
        if (position > bounds.end) break;
      }
    })(),
  );
  sliced.once('close', () => source.destroy());
  return {
    stream: sliced,
    size,
    range: bounds,
    contentLength: bounds.end - bounds.start + 1,
    contentType: res.ContentType ?? contentTypeFor(key),
    etag: res.ETag ?? '""',
    lastModified: res.LastModified ?? new Date(0),
  };
}

function httpStatus(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;
}

function isNotFound(error: unknown): boolean {
  const name = (error as { name?: string } | undefined)?.name;
  return name === 'NoSuchKey' || name === 'NotFound' || httpStatus(error) === 404;
}

/** CopySource is a URL path: each segment percent-encoded, slashes kept. */
function encodeKeyForCopy(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}
