import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The part of s3rver (a real S3-compatible HTTP server, files on disk) the tests use. */
interface S3rverInstance {
  run(): Promise<AddressInfo>;
  httpServer?: Server;
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance;
const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass;

export const S3_ACCESS_KEY = 'S3RVER';
export const S3_SECRET_KEY = 'S3RVER';

/**
 * A real S3-compatible server on 127.0.0.1 (s3rver), with one bucket, that can be stopped and
 * started again on the same port and directory (its objects survive).
 */
export class TestS3Server {
  private server: S3rverInstance | undefined;
  private readonly directory = mkdtempSync(path.join(tmpdir(), 'baton-s3-'));
  port = 0;

  constructor(readonly bucket = 'baton-test') {}

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Environment for a Baton process or app using this server. */
  env(prefix = 'baton'): Record<string, string> {
    return {
      BATON_BLOB_URL: `s3://${this.bucket}/${prefix}`,
      BATON_S3_ENDPOINT: this.endpoint,
      BATON_S3_FORCE_PATH_STYLE: 'true',
      BATON_S3_ACCESS_KEY_ID: S3_ACCESS_KEY,
      BATON_S3_SECRET_ACCESS_KEY: S3_SECRET_KEY,
    };
  }

  async start(): Promise<void> {
    const server = new S3rver({
      address: '127.0.0.1',
      port: this.port,
      silent: true,
      directory: this.directory,
      configureBuckets: [{ name: this.bucket }],
      vhostBuckets: false,
    });
    const address = await server.run();
    this.port = address.port;
    this.server = server;
  }

  /** Stops the server now, dropping open connections (clients keep them alive otherwise). */
  async stop(): Promise<void> {
    const http = this.server?.httpServer;
    this.server = undefined;
    if (!http) return;
    const closed = new Promise<void>((resolve) => http.close(() => resolve()));
    http.closeAllConnections();
    await closed;
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.directory, { recursive: true, force: true });
  }
}
