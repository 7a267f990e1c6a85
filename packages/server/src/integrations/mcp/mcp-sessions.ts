import { createHash } from 'node:crypto';

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

import { loadedMcpSdk, mcpSdk } from './mcp-sdk.js';

/** Where a session goes: the server's URL and the headers every request carries. */
export interface McpTarget {
  url: string;
  headers: Record<string, string>;
}

interface Session {
  client: Promise<Client>;
  lastUsed: number;
}

/**
 * MCP sessions (Streamable HTTP, the official SDK's client), one per server and header set,
 * reused across calls and closed after sitting idle. A session the server has forgotten (404)
 * is dropped and the request made once more on a new one: the server did not run it.
 */
export class McpSessions {
  private readonly sessions = new Map<string, Session>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly idleMs = 5 * 60_000) {
    this.sweeper = setInterval(() => this.sweep(), Math.min(idleMs, 60_000));
    this.sweeper.unref();
  }

  /** The key of a target: headers (credentials) are hashed, never kept as text in the key. */
  private static keyOf(target: McpTarget): string {
    const headers = Object.entries(target.headers).sort(([a], [b]) => a.localeCompare(b));
    return `${target.url} ${createHash('sha256').update(JSON.stringify(headers)).digest('hex')}`;
  }

  private static async open(target: McpTarget, fetch: FetchLike, signal: AbortSignal): Promise<Client> {
    const sdk = await mcpSdk();
    const transport = new sdk.StreamableHTTPClientTransport(new URL(target.url), {
      requestInit: { headers: target.headers },
      fetch,
    });
    const client = new sdk.Client({ name: 'baton', version: '0.1.0' });
    await client.connect(transport, { signal });
    return client;
  }

  /**
   * Runs `fn` on a session to `target`, opened when there is none with `fetch` (the executor's
   * egress-checked fetch: every request of the session goes through the egress policy).
   */
  async use<T>(
    target: McpTarget,
    fetch: FetchLike,
    signal: AbortSignal,
    fn: (client: Client) => Promise<T>,
  ): Promise<T> {
    const key = McpSessions.keyOf(target);
    for (let attempt = 0; ; attempt++) {
      let session = this.sessions.get(key);
      if (!session) {
        session = { client: McpSessions.open(target, fetch, signal), lastUsed: Date.now() };
        this.sessions.set(key, session);
      }
      session.lastUsed = Date.now();
      let client: Client;
      try {
        client = await session.client;
      } catch (err) {
        this.drop(key, session);
        throw err;
      }
      try {
        return await fn(client);
      } catch (err) {
        if (attempt === 0 && McpSessions.isLostSession(err)) {
          this.drop(key, session);
          continue;
        }
        throw err;
      }
    }
  }

  private static isLostSession(err: unknown): boolean {
    const sdk = loadedMcpSdk();
    if (sdk !== undefined && err instanceof sdk.StreamableHTTPError) return err.code === 404;
    return err instanceof Error && /not connected/i.test(err.message);
  }

  private drop(key: string, session: Session): void {
    if (this.sessions.get(key) === session) this.sessions.delete(key);
    session.client.then((c) => c.close()).catch(() => {});
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, session] of this.sessions)
      if (now - session.lastUsed > this.idleMs) this.drop(key, session);
  }

  get size(): number {
    return this.sessions.size;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const all = [...this.sessions.entries()];
    this.sessions.clear();
    await Promise.allSettled(all.map(async ([, s]) => (await s.client).close()));
  }
}
