import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';

import { fail } from '../errors.js';
import { RETRY_AFTER_SECONDS } from '../store/store-faults.js';
import { errorBody } from './error-handler.js';

/**
 * What a node answers on its port before it serves: while it waits for its database (up to
 * `BATON_DB_START_WAIT_MS`) and migrates. Without it the port is closed all that time, and a
 * container platform's liveness probe, failing, restarts a node that is only waiting, over and
 * over for as long as the database is away. Here the process is alive, so `/health/live` is 200,
 * as it stays during an outage once the node serves (routes/admin.ts); readiness and health say
 * 503, and every other request gets the 503 with `Retry-After` that a request needing the
 * database gets during an outage. Closed just before the real server listens on the same port.
 */
export interface StartUpProbes {
  /** Stops answering and frees the port (open connections are closed, not waited for). */
  close(): Promise<void>;
}

const STARTING = 'the node is starting: it waits for its database and migrates it before it serves';

const HEALTH_PATHS = new Set(['/health', '/api/health', '/health/ready']);

function answer(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...headers,
  });
  res.end(JSON.stringify(body));
}

function respond(req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '/').split('?', 1)[0] ?? '/';
  if (path === '/health/live') return answer(res, 200, { status: 'UP' });
  if (HEALTH_PATHS.has(path))
    return answer(res, 503, { status: 'DOWN', components: { startup: { status: 'DOWN', error: STARTING } } });
  answer(res, 503, errorBody(fail('DATABASE_UNAVAILABLE', { reason: STARTING })), {
    'retry-after': String(RETRY_AFTER_SECONDS),
  });
}

/** Listens on `host:port` with the start-up answers; rejects as `listen` would (EADDRINUSE…). */
export async function listenForStartUpProbes(port: number, host: string): Promise<StartUpProbes> {
  const server: Server = createServer(respond);
  // A request that sends its body is answered without reading it; nothing else is kept open.
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
