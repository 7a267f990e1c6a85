import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as it went over the wire between a worker and the server. */
export interface Exchange {
  method: string;
  path: string;
  query: URLSearchParams;
  /** performance.now() when the request arrived and when its answer was finished. */
  startedAt: number;
  endedAt?: number;
  status?: number;
  requestBody: string;
  responseBody: string;
}

export interface RecordingProxy {
  readonly url: string;
  readonly exchanges: Exchange[];
  close(): Promise<void>;
}

/**
 * A pass-through HTTP proxy that records every exchange, so a test can observe the worker
 * loop on the wire (what was asked, when, and what came back) against a real server.
 */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const upstream = new URL(target);
  const exchanges: Exchange[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const exchange: Exchange = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      startedAt: performance.now(),
      requestBody: '',
      responseBody: '',
    };
    exchanges.push(exchange);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      exchange.requestBody = Buffer.concat(chunks).toString('utf8');
      const out = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: upstream.host },
        },
        (answer) => {
          const body: Buffer[] = [];
          answer.on('data', (c: Buffer) => body.push(c));
          answer.on('end', () => {
            exchange.responseBody = Buffer.concat(body).toString('utf8');
            exchange.status = answer.statusCode ?? 0;
            exchange.endedAt = performance.now();
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            res.end(Buffer.concat(body));
          });
        },
      );
      out.on('error', (err) => {
        exchange.status = 502;
        exchange.endedAt = performance.now();
        if (!res.headersSent) res.writeHead(502);
        res.end(err.message);
      });
      // The worker hung up (stop): hang up upstream too, as a direct connection would.
      res.on('close', () => {
        if (!res.writableFinished) out.destroy();
      });
      out.end(exchange.requestBody);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
