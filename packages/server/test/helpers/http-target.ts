import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A real HTTP server on 127.0.0.1 for HTTP-task tests: records every request (and every
 * connection, so a test can prove none was opened) and answers with the test's handler.
 */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** Resolves when the request's connection closes (an aborted call closes it). */
  closed: Promise<number>;
}

export interface HttpTarget {
  readonly url: string;
  readonly port: number;
  readonly requests: SeenRequest[];
  /** Connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

export type TargetHandler = (req: IncomingMessage, res: ServerResponse, body: string) => void | Promise<void>;

export async function startHttpTarget(handler: TargetHandler): Promise<HttpTarget> {
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const closed = new Promise<number>((resolve) => req.socket.once('close', () => resolve(Date.now())));
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, closed });
      void Promise.resolve(handler(req, res, body)).catch(() => res.destroy());
    });
  });
  // Keep idle connections for a minute, so a test of connection reuse does not depend on timing.
  server.keepAliveTimeout = 60_000;
  server.on('connection', (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    connections: () => connections,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/**
 * When `seen`'s connection closed, or a rejection with `message` after `timeoutMs`. The bound's
 * timer is cleared either way: a test that proves an abort must not leave a timer that keeps its
 * file's process alive after the last test.
 */
export async function closedWithin(seen: SeenRequest, timeoutMs: number, message: string): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      seen.closed,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(message)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Waits `ms` before a slow answer, or less if the caller goes away first (an aborted call), so a
 * long simulated delay does not outlive its connection and keep the test process alive.
 */
export function delayUnlessClosed(res: ServerResponse, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    res.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Polls `probe` until it answers a value (not undefined), or fails after `timeoutMs`. */
export async function eventually<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
