import type pg from 'pg';

/** The channel every node NOTIFYs and LISTENs on. */
export const QUEUE_CHANNEL = 'baton_queues';
/** The listening connection's `application_name`: how other nodes find it (peer-presence.ts). */
export const LISTENER_NAME = 'baton-queue-listener';
/** Where a node's listener says hello once it listens, so the others know to notify it (peer-presence.ts). */
export const NODES_CHANNEL = 'baton_nodes';

/** Payloads are capped by PostgreSQL at 8000 bytes; longer name lists are split (notifier.ts). */
export const MAX_NOTIFY_PAYLOAD = 7000;

/** The backend process of a connected client (node-postgres keeps it; its types do not say so). */
function backendPid(client: pg.Client): number | undefined {
  const pid = (client as pg.Client & { processID?: unknown }).processID;
  return typeof pid === 'number' ? pid : undefined;
}

export function parsePayload(payload: string | undefined): string[] {
  if (payload === undefined || payload === '') return [];
  return payload.split(',').filter((name) => name !== '');
}

export interface QueueListenerOptions {
  /** A new, unconnected connection (one with an `error` handler of its own). */
  client: () => pg.Client;
  /** Run on the connection once connected, before LISTEN (e.g. that it is the primary). */
  ready?: (client: pg.Client) => Promise<void>;
  /**
   * How often the idle connection checks that PostgreSQL still answers, in ms (default 5,000): a
   * path that drops packets without a reset is otherwise noticed only by TCP, many minutes on.
   */
  heartbeatMs?: number;
  onError?: (err: Error) => void;
  /** Another node's listener said hello: it listens from now on. */
  onPeer?: () => void;
  /** First reconnect delay in ms (doubles, jittered, up to maxBackoffMs). */
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

/**
 * One dedicated connection per store that LISTENs on `baton_queues`. Started on the first
 * subscription; when the connection drops it reconnects with backoff and then tells every
 * listener `[]` ("notifications may have been missed: re-check every queue"). Closed by `close()`.
 * Once it listens it says hello on `baton_nodes`, and it tells `onPeer` of other nodes' hellos.
 * When the connection is lost it also tells every listener `[]` at once: long polls waiting for
 * a notification that may never come look again (and answer empty while the database is away).
 */
export class QueueListener {
  private readonly listeners = new Set<(queueNames: string[]) => void>();
  private client: pg.Client | undefined;
  private started = false;
  private closed = false;
  private failures = 0;
  private missedSome = false;
  private timer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly connected = new Set<() => void>();
  private isListening = false;

  constructor(private readonly options: QueueListenerOptions) {}

  subscribe(listener: (queueNames: string[]) => void): () => void {
    if (this.closed) return () => {};
    this.listeners.add(listener);
    if (!this.started) {
      this.started = true;
      this.connect();
    }
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** The backend of the listening connection, while it listens (a node's own is not another node's). */
  get pid(): number | undefined {
    return this.isListening && this.client ? backendPid(this.client) : undefined;
  }

  /** Resolves once the LISTEN is in place (tests; a subscription that never connects never resolves). */
  listening(): Promise<void> {
    if (this.isListening) return Promise.resolve();
    return new Promise((resolve) => this.connected.add(resolve));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.isListening = false;
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.heartbeat !== undefined) clearInterval(this.heartbeat);
    const client = this.client;
    this.client = undefined;
    if (client !== undefined) await client.end().catch(() => {});
  }

  private emit(names: string[]): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(names);
      } catch (err) {
        this.options.onError?.(err instanceof Error ? err : new Error(String(err)));
      }
    }
  }

  private connect(): void {
    if (this.closed) return;
    const client = this.options.client();
    this.client = client;
    let failed = false;
    const fail = (err?: Error): void => {
      if (failed) return;
      failed = true;
      const wasListening = this.isListening;
      this.isListening = false;
      if (this.heartbeat !== undefined) clearInterval(this.heartbeat);
      this.heartbeat = undefined;
      if (err !== undefined && !this.closed) this.options.onError?.(err);
      if (this.client === client) this.client = undefined;
      client.removeAllListeners('notification');
      client.end().catch(() => {});
      if (this.closed) return;
      this.missedSome = true;
      if (wasListening) this.emit([]);
      this.scheduleReconnect();
    };
    client.on('error', fail);
    client.on('end', () => fail());
    client.on('notification', (msg) => {
      if (msg.channel === QUEUE_CHANNEL) this.emit(parsePayload(msg.payload));
      else if (msg.channel === NODES_CHANNEL && msg.processId !== backendPid(client)) this.options.onPeer?.();
    });
    client
      .connect()
      .then(() => this.options.ready?.(client))
      .then(() => client.query(`LISTEN ${QUEUE_CHANNEL}; LISTEN ${NODES_CHANNEL}; NOTIFY ${NODES_CHANNEL}`))
      .then(
        () => {
          if (failed || this.closed) return;
          this.failures = 0;
          this.isListening = true;
          this.startHeartbeat(client, fail);
          for (const resolve of this.connected) resolve();
          this.connected.clear();
          if (this.missedSome) {
            this.missedSome = false;
            this.emit([]);
          }
        },
        (err: unknown) => fail(err instanceof Error ? err : new Error(String(err))),
      );
  }

  private startHeartbeat(client: pg.Client, fail: (err?: Error) => void): void {
    const every = this.options.heartbeatMs ?? 5_000;
    let inFlight = false;
    this.heartbeat = setInterval(() => {
      if (inFlight) return;
      inFlight = true;
      // No answer within a period = the path is lost.
      client.query({ text: 'SELECT 1', query_timeout: every } as pg.QueryConfig).then(
        () => {
          inFlight = false;
        },
        (err: unknown) => fail(err instanceof Error ? err : new Error(String(err))),
      );
    }, every);
    this.heartbeat.unref();
  }

  private scheduleReconnect(): void {
    const min = this.options.minBackoffMs ?? 100;
    const max = this.options.maxBackoffMs ?? 5000;
    const ceiling = Math.min(max, min * 2 ** this.failures);
    this.failures++;
    this.timer = setTimeout(() => this.connect(), ceiling / 2 + Math.random() * (ceiling / 2));
    this.timer.unref();
  }
}
