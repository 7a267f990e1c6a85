import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';

import { type Clock, ManualClock, systemClock } from '../../src/clock.js';
import { compileOptions } from '../../src/config/options.js';
import { createServer, type BatonServer } from '../../src/server.js';
import type { ScriptRunner } from '../../src/engine/scripts.js';
import type { CallHandlerRegistry } from '../../src/integrations/call-handler.js';
import type { Store } from '../../src/store/store.js';
import type { BlobStore } from '../../src/blobs/blob-store.js';
import type { ArchiveFaults } from '../../src/archive/archiver.js';

export interface TestApp {
  server: BatonServer;
  app: FastifyInstance;
  store: Store;
  close(): Promise<void>;
}

/** A Baton server on the given store, driven through `inject()` (real routes, no socket). */
export async function testApp(
  store: Store,
  options: {
    clock?: Clock;
    env?: Record<string, string>;
    logger?: Logger;
    scripts?: ScriptRunner;
    timerLoop?: boolean;
    /** Call handlers instead of the built-in ones (system-call executor tests). */
    callHandlers?: CallHandlerRegistry;
    blobs?: BlobStore;
    archiveFaults?: ArchiveFaults;
    /** This node's number in a BATON_PROCESSES group. */
    processIndex?: number;
  } = {},
): Promise<TestApp> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'baton-app-'));
  const server = await createServer({
    options: compileOptions({ BATON_DATA_DIR: dataDir, BATON_LOG_LEVEL: 'silent', ...options.env }),
    store,
    clock: options.clock ?? systemClock,
    logger: options.logger ?? pino({ level: 'silent' }),
    ...(options.scripts && { scripts: options.scripts }),
    ...(options.callHandlers && { callHandlers: options.callHandlers }),
    ...(options.blobs && { blobs: options.blobs }),
    ...(options.archiveFaults && { archiveFaults: options.archiveFaults }),
    ...(options.processIndex !== undefined && { processIndex: options.processIndex }),
    // On a manual clock the test runs archive passes itself (`server.archiver.runOnce()`).
    archiveLoop: !(options.clock instanceof ManualClock),
    // And the housekeeping passes (`server.definitionPruner.runOnce()`).
    housekeeping: !(options.clock instanceof ManualClock),
    // On a manual clock the test fires due timers itself (`server.timers.fireDue()`).
    timerLoop: options.timerLoop ?? !(options.clock instanceof ManualClock),
  });
  await server.app.ready();
  return {
    server,
    app: server.app,
    store,
    close: async () => {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Small JSON helper over inject: answers status, parsed body (or text) and headers. */
export async function call(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; text: string; headers: Record<string, unknown> }> {
  const res = await app.inject({
    method,
    url,
    ...(body !== undefined && {
      payload: typeof body === 'string' ? body : JSON.stringify(body),
      headers: { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json', ...headers },
    }),
  });
  let parsed: unknown = undefined;
  try {
    parsed = res.body ? JSON.parse(res.body) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.statusCode, body: parsed, text: res.body, headers: res.headers };
}
