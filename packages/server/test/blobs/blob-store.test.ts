import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { blobHealthCheck } from '../../src/blobs/blob-health.js';
import { BlobKeyError, type BlobStore, BlobTooLarge } from '../../src/blobs/blob-store.js';
import { FilesystemBlobStore } from '../../src/blobs/filesystem-blob-store.js';
import { S3BlobStore } from '../../src/blobs/s3-blob-store.js';
import { S3_ACCESS_KEY, S3_SECRET_KEY, TestS3Server } from '../helpers/s3-server.js';

/** One conformance suite over every blob store: the filesystem one and S3 on a real s3rver. */
interface BlobCase {
  name: string;
  open(): Promise<{ blobs: BlobStore; cleanup(): Promise<void> }>;
}

const cases: BlobCase[] = [
  {
    name: 'filesystem',
    open: () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'baton-blobs-'));
      return Promise.resolve({
        blobs: new FilesystemBlobStore(dir),
        cleanup: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
      });
    },
  },
  {
    name: 's3 (s3rver)',
    open: async () => {
      const server = new TestS3Server();
      await server.start();
      return {
        blobs: new S3BlobStore({
          bucket: server.bucket,
          prefix: 'conformance/',
          region: 'us-east-1',
          endpoint: server.endpoint,
          forcePathStyle: true,
          credentials: { accessKeyId: S3_ACCESS_KEY, secretAccessKey: S3_SECRET_KEY },
        }),
        cleanup: () => server.dispose(),
      };
    },
  },
];

for (const blobCase of cases) {
  describe(`blob store: ${blobCase.name}`, () => {
    let blobs: BlobStore;
    let cleanup: () => Promise<void>;
    before(async () => {
      ({ blobs, cleanup } = await blobCase.open());
    });
    after(async () => {
      await blobs.close();
      await cleanup();
    });

    it('reads back what was written, byte for byte, and overwrites in place', async () => {
      const body = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251));
      await blobs.put('payloads/a/one.bin', body);
      assert.deepEqual(await blobs.get('payloads/a/one.bin'), body);
      await blobs.put('payloads/a/one.bin', Buffer.from('second'));
      assert.equal((await blobs.get('payloads/a/one.bin'))?.toString(), 'second');
    });

    it('answers undefined for a missing blob, and deleting twice is fine', async () => {
      assert.equal(await blobs.get('payloads/none/here.json'), undefined);
      await blobs.put('payloads/gone.json', Buffer.from('{}'));
      await blobs.delete('payloads/gone.json');
      await blobs.delete('payloads/gone.json');
      assert.equal(await blobs.get('payloads/gone.json'), undefined);
    });

    it('refuses a blob over the reader’s limit from its size, and reads one exactly at it', async () => {
      const body = Buffer.alloc(300_000, 0x61);
      await blobs.put('payloads/big.json', body);
      await assert.rejects(
        blobs.get('payloads/big.json', { maxBytes: 299_999 }),
        (err: unknown) =>
          err instanceof BlobTooLarge &&
          err.key === 'payloads/big.json' &&
          err.bytes === 300_000 &&
          err.limit === 299_999,
      );
      assert.deepEqual(await blobs.get('payloads/big.json', { maxBytes: 300_000 }), body);
      assert.equal(await blobs.get('payloads/none.json', { maxBytes: 1 }), undefined);
      // A refusal holds nothing open (S3's client keeps at most 50 connections: more refusals than
      // that, each leaving its connection behind, would make the next read wait for ever).
      for (let n = 0; n < 60; n++)
        await assert.rejects(blobs.get('payloads/big.json', { maxBytes: 1_000 }), BlobTooLarge);
      assert.equal((await blobs.get('payloads/big.json'))?.length, 300_000);
    });

    it('keeps an empty blob apart from a missing one', async () => {
      await blobs.put('payloads/empty', Buffer.alloc(0));
      assert.equal((await blobs.get('payloads/empty'))?.length, 0);
    });

    it('refuses keys that could leave its directory or prefix', async () => {
      for (const key of ['../x', 'a/../../b', '/abs', 'a//b', '', 'a/./b', 'sp ace', 'a\\b']) {
        await assert.rejects(blobs.put(key, Buffer.from('x')), BlobKeyError, key);
        await assert.rejects(blobs.get(key), BlobKeyError, key);
      }
    });

    it('presigns only when the store serves URLs itself', async () => {
      const url = await blobs.presign('payloads/p.json', 'WRITE', 60);
      if (blobs.kind === 'filesystem') assert.equal(url, undefined);
      else {
        assert.ok(url);
        const put = await fetch(url, { method: 'PUT', body: '{"via":"presigned"}' });
        assert.equal(put.status, 200, await put.text());
        assert.equal((await blobs.get('payloads/p.json'))?.toString(), '{"via":"presigned"}');
        const read = await blobs.presign('payloads/p.json', 'READ', 60);
        assert.ok(read);
        assert.equal(await (await fetch(read)).text(), '{"via":"presigned"}');
        // An expired URL is refused by the server itself (s3rver checks expiry; it does not
        // recompute v4 signatures, which a real S3 does).
        const short = await blobs.presign('payloads/p.json', 'WRITE', 1);
        assert.ok(short);
        await new Promise((resolve) => setTimeout(resolve, 2100));
        assert.equal((await fetch(short, { method: 'PUT', body: 'late' })).status, 403);
        assert.equal((await blobs.get('payloads/p.json'))?.toString(), '{"via":"presigned"}');
      }
    });

    it('passes its health probe, leaving nothing behind', async () => {
      const details = await blobHealthCheck(blobs)();
      assert.equal(details.kind, blobs.kind);
    });
  });
}

describe('blob health: S3 server stopped and started again', () => {
  it('is DOWN with the reason while the server is stopped and UP when it is back', async () => {
    const server = new TestS3Server();
    await server.start();
    const blobs = new S3BlobStore({
      bucket: server.bucket,
      prefix: '',
      region: 'us-east-1',
      endpoint: server.endpoint,
      forcePathStyle: true,
      maxAttempts: 1,
      credentials: { accessKeyId: S3_ACCESS_KEY, secretAccessKey: S3_SECRET_KEY },
    });
    const check = blobHealthCheck(blobs);
    try {
      await check();
      await server.stop();
      await assert.rejects(check(), (err: Error) => {
        assert.match(err.message, /^blob store s3 \(s3:\/\/baton-test\/ at http:\/\/127\.0\.0\.1:\d+\): /);
        assert.match(err.message, /ECONNREFUSED|connect|socket hang up/i);
        return true;
      });
      await server.start();
      await check();
    } finally {
      await blobs.close();
      await server.dispose();
    }
  });
});
