import { createServer, type Server, Socket } from 'node:net';

/**
 * A TCP proxy between a node and PostgreSQL that fails on command, the way a network does:
 *   - `reset()`: every open connection is reset (RST to both ends);
 *   - `blackhole()`: bytes are dropped, in both directions and on new connections, with no reset,
 *     until `heal()`, which then resets what was cut off (as TCP eventually gives up on it);
 *   - `arm(match, fault)`: the same, at the moment the node sends bytes that `match` (e.g. in
 *     the middle of a COMMIT: the statement reaches PostgreSQL, its answer never comes back);
 *     `match` is also told which connection sent them (an object of its own for each).
 */
export type Fault = 'reset' | 'blackhole';
/** Whether the bytes a connection sent set off the armed fault. */
export type Match = (chunk: string, connection: object) => boolean;

interface Pair {
  client: Socket;
  server: Socket;
  dropped: boolean;
}

export class FaultProxy {
  private readonly pairs = new Set<Pair>();
  private dropping = false;
  private armed: { match: Match; fault: Fault; fired: () => void } | undefined;
  private server: Server | undefined;
  port = 0;
  /** How many faults an armed match has set off. */
  fired = 0;
  /** How many connections the node has opened through this proxy (tried, when the server is down). */
  accepted = 0;
  /** Counts of the node's messages that matched each watched pattern (diagnostics). */
  readonly counts = new Map<string, number>();

  constructor(private readonly target: { host: string; port: number }) {}

  async listen(): Promise<number> {
    const server = createServer((client) => this.accept(client));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
    return this.port;
  }

  /** The URL of `url` with its host and port replaced by this proxy's. */
  urlFor(url: string): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  reset(): void {
    for (const pair of [...this.pairs]) this.kill(pair);
  }

  blackhole(): void {
    this.dropping = true;
    for (const pair of this.pairs) pair.dropped = true;
  }

  heal(): void {
    this.dropping = false;
    for (const pair of [...this.pairs]) if (pair.dropped) this.kill(pair);
  }

  get blackholed(): boolean {
    return this.dropping;
  }

  /** Sets off `fault` the next time the node sends bytes that `match`; resolves when it has. */
  arm(match: Match, fault: Fault): Promise<void> {
    return new Promise((resolve) => {
      this.armed = { match, fault, fired: resolve };
    });
  }

  disarm(): void {
    this.armed = undefined;
  }

  async close(): Promise<void> {
    this.reset();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private accept(client: Socket): void {
    this.accepted++;
    const server = new Socket();
    const pair: Pair = { client, server, dropped: this.dropping };
    this.pairs.add(pair);
    const end = (): void => {
      if (!this.pairs.delete(pair)) return;
      if (pair.dropped) {
        // Cut off: the other end hears nothing of it until heal() resets it.
        this.pairs.add(pair);
        return;
      }
      client.destroy();
      server.destroy();
    };
    client.on('error', end);
    server.on('error', end);
    client.on('close', end);
    server.on('close', end);
    client.on('data', (chunk: Buffer) => {
      if (pair.dropped) return;
      const text = chunk.toString('latin1');
      for (const [key, n] of this.counts) if (text.includes(key)) this.counts.set(key, n + 1);
      const armed = this.armed;
      if (armed && armed.match(text, pair)) {
        this.armed = undefined;
        this.fired++;
        // The bytes reach PostgreSQL; whatever it answers never reaches the node.
        server.write(chunk);
        if (armed.fault === 'reset') this.kill(pair);
        else this.blackhole();
        armed.fired();
        return;
      }
      server.write(chunk);
    });
    server.on('data', (chunk: Buffer) => {
      if (!pair.dropped) client.write(chunk);
    });
    server.connect(this.target.port, this.target.host);
  }

  private kill(pair: Pair): void {
    this.pairs.delete(pair);
    pair.dropped = false;
    pair.client.resetAndDestroy();
    if (pair.server.connecting) pair.server.destroy();
    else pair.server.resetAndDestroy();
  }
}
