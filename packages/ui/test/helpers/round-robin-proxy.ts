import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small reverse proxy for tests: one URL in front of several Baton nodes, each request sent to
 * the next node in turn, so consecutive requests of one page land on different nodes. Method,
 * path, headers and body are forwarded; the answer is streamed back as it comes.
 */

export interface RoundRobinProxy {
  /** Base URL, e.g. http://127.0.0.1:41234 (no trailing slash). */
  readonly url: string;
  /** How many requests each upstream answered, in the order given. */
  readonly served: readonly number[];
  close(): Promise<void>;
}

/** Hop-by-hop headers (RFC 9110 §7.6.1) belong to one connection and are not forwarded. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
]);

function endToEnd(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  return out;
}

export async function startRoundRobinProxy(upstreams: readonly string[]): Promise<RoundRobinProxy> {
  if (upstreams.length === 0) throw new Error('a proxy needs at least one upstream');
  const targets = upstreams.map((u) => new URL(u));
  const served = targets.map(() => 0);
  const agent = new http.Agent({ keepAlive: true });
  let next = 0;

  const server = http.createServer((req, res) => {
    const index = next;
    next = (next + 1) % targets.length;
    const target = targets[index]!;
    served[index]! += 1;
    const upstream = http.request(
      {
        agent,
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        // The Host the browser used is kept: Baton sees the URL the person sees.
        headers: endToEnd(req.headers),
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.headers));
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      },
    );
    upstream.on('error', (err) => {
      if (res.headersSent) res.destroy(err);
      else {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`upstream ${target.host} failed: ${err.message}`);
      }
    });
    req.on('error', () => upstream.destroy());
    req.pipe(upstream);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    served,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
