import pg from 'pg';

/** The channel every node NOTIFYs and LISTENs on. */
export const QUEUE_CHANNEL = 'baton_queues';

/** Payloads are capped by PostgreSQL at 8000 bytes; longer name lists are split (notifier.ts). */
export const MAX_NOTIFY_PAYLOAD = 7000;

export function parsePayload(payload: string | undefined): string[] {
  if (payload === undefined || payload === '') return [];
  return payload.split(',').filter((name) => name !== '');
}

export interface QueueListenerOptions {
  client: pg.ClientConfig;
  onError?: (err: Error) => void;
  /** First reconnect delay in ms (doubles, jittered, up to maxBackoffMs). */
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

/**
 * One dedicated connection per store that LISTENs on `baton_queues`. Started on the first
 * subscription; when the connection drops it reconnects with backoff and then tells every
 * listener `[]` ("notifications may have been missed: re-check every queue"). Closed by `close()`.
 */
export class QueueListener {
  private readonly listeners = new Set<(queueNames: string[]) => void>();
  private client: pg.Client | undefined;
  private started = false;
  private closed = false;
  private failures = 0;
  private missedSome = false;
  private timer: NodeJS.Timeout | undefined;
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

  /** Resolves once the LISTEN is in place (tests; a subscription that never connects never resolves). */
  listening(): Promise<void> {
    if (this.isListening) return Promise.resolve();
    return new Promise((resolve) => this.connected.add(resolve));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.isListening = false;
    if (this.timer !== undefined) clearTimeout(this.timer);
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
    const client = new pg.Client(this.options.client);
    this.client = client;
    let failed = false;
    const fail = (err?: Error): void => {
      if (failed) return;
      failed = true;
      this.isListening = false;
      if (err !== undefined && !this.closed) this.options.onError?.(err);
      if (this.client === client) this.client = undefined;
      client.removeAllListeners('notification');
      client.end().catch(() => {});
      if (this.closed) return;
      this.missedSome = true;
      this.scheduleReconnect();
    };
    client.on('error', fail);
    client.on('end', () => fail());
    client.on('notification', (msg) => {
      if (msg.channel === QUEUE_CHANNEL) this.emit(parsePayload(msg.payload));
    });
    client
      .connect()
      .then(() => client.query(`LISTEN ${QUEUE_CHANNEL}`))
      .then(
        () => {
          if (failed || this.closed) return;
          this.failures = 0;
          this.isListening = true;
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

  private scheduleReconnect(): void {
    const min = this.options.minBackoffMs ?? 100;
    const max = this.options.maxBackoffMs ?? 5000;
    const ceiling = Math.min(max, min * 2 ** this.failures);
    this.failures++;
    this.timer = setTimeout(() => this.connect(), ceiling / 2 + Math.random() * (ceiling / 2));
    this.timer.unref();
  }
}
