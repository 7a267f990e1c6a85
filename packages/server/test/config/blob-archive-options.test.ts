import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';

import { ConfigError, compileOptions, parseDuration, publicSettings } from '../../src/config/options.js';

/** The blob, payload and archive settings: defaults, parsing, and refusals that name the setting. */
describe('blob, payload and archive settings', () => {
  it('defaults to a blob directory under the data dir, archiving off', () => {
    const options = compileOptions({ BATON_DATA_DIR: '/srv/baton' }, '/');
    assert.deepEqual(options.blobs, { kind: 'filesystem', directory: path.join('/srv/baton', 'blobs') });
    assert.equal(options.archiveAfterMs, undefined);
    assert.equal(options.payloadInlineMaxBytes, 3 * 1024 * 1024);
    assert.equal(options.payloadUrlTtlSeconds, 300);
  });

  it('reads an S3 bucket, prefix, endpoint, region, path style and credentials', () => {
    const raw = {
      BATON_BLOB_URL: 's3://my-bucket/runs/prod/',
      BATON_S3_ENDPOINT: 'http://127.0.0.1:9000',
      BATON_S3_REGION: 'eu-west-1',
      BATON_S3_FORCE_PATH_STYLE: 'true',
      BATON_S3_ACCESS_KEY_ID: 'id',
      BATON_S3_SECRET_ACCESS_KEY: 'very-secret',
    };
    assert.deepEqual(compileOptions(raw).blobs, {
      kind: 's3',
      bucket: 'my-bucket',
      prefix: 'runs/prod/',
      region: 'eu-west-1',
      forcePathStyle: true,
      endpoint: 'http://127.0.0.1:9000',
      credentials: { accessKeyId: 'id', secretAccessKey: 'very-secret' },
    });
    const shown = publicSettings(compileOptions(raw), raw);
    assert.equal(shown.BATON_S3_SECRET_ACCESS_KEY, '(set)');
    assert.ok(!JSON.stringify(shown).includes('very-secret'));
    assert.equal(compileOptions({ BATON_BLOB_URL: 's3://bucket' }).blobs.kind, 's3');
  });

  it('refuses bad values with a message naming the setting', () => {
    const refuses = (raw: Record<string, string>, pattern: RegExp): void =>
      assert.throws(
        () => compileOptions(raw),
        (err: unknown) => err instanceof ConfigError && pattern.test(err.message),
      );
    refuses({ BATON_BLOB_URL: 'gs://bucket' }, /BATON_BLOB_URL must be s3:\/\//);
    refuses({ BATON_BLOB_URL: 's3://B' }, /BATON_BLOB_URL/);
    refuses({ BATON_BLOB_URL: 's3://bucket/a b' }, /BATON_BLOB_URL prefix/);
    refuses({ BATON_BLOB_URL: 's3://bucket', BATON_S3_ENDPOINT: 'ftp://x' }, /BATON_S3_ENDPOINT/);
    refuses({ BATON_BLOB_URL: 's3://bucket', BATON_S3_ACCESS_KEY_ID: 'id' }, /must be set together/);
    refuses({ BATON_ARCHIVE_AFTER: 'soon' }, /BATON_ARCHIVE_AFTER must be a duration/);
    refuses({ BATON_ARCHIVE_AFTER: '0s' }, /BATON_ARCHIVE_AFTER/);
    refuses({ BATON_PAYLOAD_INLINE_MAX_BYTES: '10' }, /BATON_PAYLOAD_INLINE_MAX_BYTES must be an integer/);
    refuses({ BATON_PAYLOAD_SIGNING_KEY: 'short' }, /at least 16/);
    refuses({ BATON_PUBLIC_URL: 'baton.example.com' }, /BATON_PUBLIC_URL/);
  });

  it('parses durations', () => {
    assert.equal(parseDuration('30d'), 30 * 86_400_000);
    assert.equal(parseDuration('1h30m'), 5_400_000);
    assert.equal(parseDuration(' 90S '), 90_000);
    assert.equal(parseDuration('250ms'), 250);
    assert.equal(parseDuration('1.5h'), undefined);
    assert.equal(parseDuration('-1h'), undefined);
    assert.equal(parseDuration('12'), undefined);
    assert.equal(compileOptions({ BATON_ARCHIVE_AFTER: '7d' }).archiveAfterMs, 7 * 86_400_000);
  });
});
