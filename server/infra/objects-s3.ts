// The object store on an S3 bucket (any S3-compatible store), loaded by object-store.ts's createObjectStore only when
// OBJECT_STORE names a bucket.
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { Config } from './config.js';
import { assertKey, bodyEtag, toBuffer, type ObjectStore, type PutOptions, type StoredObject } from './objects.js';

/**
 * Objects in an S3 bucket under `prefix` (empty, or ending in `/`). The ETag is the bucket's own, so a client
 * revalidating through a CDN in front of the bucket and one talking to the delivery origin send the same tag.
 */
export class S3Store implements ObjectStore {
  readonly prefix: string;

  constructor(
    readonly client: S3Client,
    readonly bucket: string,
    prefix = '',
  ) {
    const p = prefix.replace(/^\/+|\/+$/g, '');
    this.prefix = p ? `${p}/` : '';
  }

  private key(key: string): string {
    assertKey(key);
    return this.prefix + key;
  }

  async put(key: string, body: Buffer | string, opts: PutOptions): Promise<void> {
    const data = toBuffer(body);
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: this.key(key),
        Body: data,
        ContentLength: data.length,
        ContentType: opts.contentType,
        CacheControl: opts.cacheControl,
      }),
    );
  }

  async get(key: string): Promise<StoredObject | null> {
    let out;
    try {
      out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.key(key) }));
    } catch (err) {
      const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
      // A missing bucket is also a 404, but it is a configuration error, not a missing object.
      if (e.name === 'NoSuchKey' || (e.$metadata?.httpStatusCode === 404 && e.name !== 'NoSuchBucket')) return null;
      throw err;
    }
    const bytes = out.Body ? await out.Body.transformToByteArray() : new Uint8Array();
    const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const etag = out.ETag ? (/^(W\/)?"/.test(out.ETag) ? out.ETag : `"${out.ETag}"`) : bodyEtag(body);
    return {
      body,
      contentType: out.ContentType ?? 'application/octet-stream',
      cacheControl: out.CacheControl ?? '',
      etag,
    };
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key(key) }));
  }

  async deleteTree(prefix: string): Promise<void> {
    const Prefix = `${this.key(prefix)}/`;
    let ContinuationToken: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix, ContinuationToken }));
      const keys = (page.Contents ?? []).map((o) => ({ Key: o.Key! }));
      if (keys.length)
        await this.client.send(
          new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: keys, Quiet: true } }),
        );
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
  }

  async copy(from: string, to: string): Promise<void> {
    // Server-side: the bytes never pass through this process. Content type and cache control come along.
    await this.client.send(
      new CopyObjectCommand({
        Bucket: this.bucket,
        Key: this.key(to),
        CopySource: `${this.bucket}/${this.key(from)}`,
        MetadataDirective: 'COPY',
      }),
    );
  }
}

/**
 * The store on `bucket` under `prefix`. Credentials come from the AWS SDK's own chain (AWS_ACCESS_KEY_ID /
 * AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, AWS_PROFILE, instance or container roles).
 */
export function s3Store(s3: Config['s3'], bucket: string, prefix: string): S3Store {
  const { endpoint, forcePathStyle } = s3;
  // An S3-compatible store ignores the region but the SDK refuses to sign without one; AWS itself gets the
  // SDK's own resolution (AWS_REGION, the profile) when S3_REGION is unset.
  const region = s3.region || (endpoint && !process.env.AWS_REGION ? 'us-east-1' : undefined);
  const client = new S3Client({
    ...(region ? { region } : {}),
    ...(endpoint ? { endpoint } : {}),
    forcePathStyle,
  });
  return new S3Store(client, bucket, prefix);
}
