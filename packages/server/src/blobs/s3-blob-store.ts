import {
  DeleteObjectCommand,
  GetObjectCommand,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';

import {
  type BlobOperation,
  type BlobReadOptions,
  type BlobStore,
  BlobTooLarge,
  checkBlobKey,
} from './blob-store.js';

export interface S3BlobSettings {
  bucket: string;
  /** Key prefix inside the bucket ('' or ending in '/'). */
  prefix: string;
  region: string;
  /** An S3-compatible server's URL (MinIO, Ceph, …); unset = AWS. */
  endpoint?: string;
  /** Path-style URLs (`endpoint/bucket/key`), which most S3-compatible servers need. */
  forcePathStyle: boolean;
  /** Unset = the SDK's default credential chain (environment, instance role, …). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** How many times a call is tried before it fails (the SDK's backoff in between). */
  maxAttempts?: number;
}

/** Blobs in an S3-compatible bucket, under a prefix; signed URLs are S3 presigned requests. */
export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  private readonly client: S3Client;

  constructor(private readonly settings: S3BlobSettings) {
    this.client = new S3Client({
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      maxAttempts: settings.maxAttempts ?? 3,
      ...(settings.endpoint !== undefined && { endpoint: settings.endpoint }),
      ...(settings.credentials !== undefined && { credentials: settings.credentials }),
    });
  }

  get location(): string {
    const where = this.settings.endpoint ? ` at ${this.settings.endpoint}` : '';
    return `s3://${this.settings.bucket}/${this.settings.prefix}${where}`;
  }

  private keyOf(key: string): string {
    return `${this.settings.prefix}${checkBlobKey(key)}`;
  }

  async put(key: string, body: Uint8Array, contentType = 'application/octet-stream'): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.settings.bucket,
        Key: this.keyOf(key),
        Body: body,
        ContentType: contentType,
      }),
    );
  }

  async get(key: string, options?: BlobReadOptions): Promise<Buffer | undefined> {
    const max = options?.maxBytes;
    const abort = new AbortController();
    try {
      const answer = await this.client.send(
        new GetObjectCommand({ Bucket: this.settings.bucket, Key: this.keyOf(key) }),
        { abortSignal: abort.signal },
      );
      if (!answer.Body) return Buffer.alloc(0);
      if (max === undefined) return Buffer.from(await answer.Body.transformToByteArray());
      const size = answer.ContentLength;
      if (size !== undefined && size > max) {
        // The body is not read: its stream is destroyed and the request aborted, which closes
        // the connection instead of draining the body through it.
        (answer.Body as { destroy?: () => void }).destroy?.();
        abort.abort();
        throw new BlobTooLarge(key, size, max);
      }
      // Counted as it comes too, for a server that sent no length or more than it said.
      const chunks: Buffer[] = [];
      let read = 0;
      for await (const chunk of answer.Body as AsyncIterable<Uint8Array>) {
        read += chunk.byteLength;
        if (read > max) {
          abort.abort();
          throw new BlobTooLarge(key, size, max);
        }
        chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      }
      return Buffer.concat(chunks, read);
    } catch (err) {
      if (err instanceof BlobTooLarge) throw err;
      if (err instanceof NoSuchKey) return undefined;
      if (err instanceof S3ServiceException && err.$metadata.httpStatusCode === 404) return undefined;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: this.keyOf(key) }));
  }

  presign(key: string, operation: BlobOperation, expiresInSeconds: number): Promise<string> {
    const target = { Bucket: this.settings.bucket, Key: this.keyOf(key) };
    const command = operation === 'WRITE' ? new PutObjectCommand(target) : new GetObjectCommand(target);
    return getSignedUrl(this.client, command, { expiresIn: expiresInSeconds });
  }

  close(): Promise<void> {
    this.client.destroy();
    return Promise.resolve();
  }
}
