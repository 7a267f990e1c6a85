import pg from 'pg';

/**
 * A connection that keeps the answer deadline of its queries itself (`query_timeout`, of the
 * connection's config or of one query's), instead of leaving it to node-postgres.
 *
 * Why: node-postgres keeps that deadline by replacing a query's callback after the query object
 * was made, and a query in its promise form gets its callback that way too. On this runtime (Node
 * 20's V8) every answer of a query whose callback was set after the fact outlives two
 * young-generation collections and is promoted to the old generation: about 1 MB a scavenge at a
 * node's light load (the rows, their column descriptions, the messages they came in), so each
 * scavenge copied it and paused the node the longer for it (docs/PERFORMANCE.md, "Fixed: query
 * answers promoted to the old generation"). Here the callback is given when the query is made
 * and never changes, and a timer of Baton's own ends the wait: the same error, `Query read
 * timeout`, after the same time, which callers take as a lost connection and do not reuse.
 *
 * node-postgres also takes a query that timed out before it was sent out of the connection's
 * queue; here it stays queued, and since the connection is released broken (or ended by the pool)
 * right after, it never runs.
 */
export class DeadlineClient extends pg.Client {
  /** How long a query waits for its answer by default, in ms (0: as long as it takes). */
  readonly answerDeadlineMs: number;

  constructor(config?: string | pg.ClientConfig) {
    const options: pg.ClientConfig =
      typeof config === 'string' ? { connectionString: config } : (config ?? {});
    const { query_timeout: deadline, ...rest } = options;
    super(rest);
    this.answerDeadlineMs = deadline ?? 0;
  }
}

type Callback = (err: Error | null, result?: unknown) => void;
type LooseQuery = (this: pg.Client, config: unknown, values?: unknown, callback?: unknown) => unknown;

// Read off the prototype once and always called with a connection as `this`.
// eslint-disable-next-line @typescript-eslint/unbound-method
const baseQuery = pg.Client.prototype.query as unknown as LooseQuery;

function isSubmittable(config: unknown): boolean {
  return (
    typeof config === 'object' &&
    config !== null &&
    typeof (config as { submit?: unknown }).submit === 'function'
  );
}

/** `query` of node-postgres, in each of its forms, with the deadline kept here. */
function deadlineQuery(this: DeadlineClient, config: unknown, values?: unknown, callback?: unknown): unknown {
  // A query object of its own (a cursor, a stream) goes through unchanged.
  if (isSubmittable(config)) return baseQuery.call(this, config, values, callback);
  const done = (typeof values === 'function' ? values : callback) as Callback | undefined;
  const args = typeof values === 'function' ? undefined : values;
  let deadlineMs = this.answerDeadlineMs;
  let sent = config;
  if (typeof config === 'object' && config !== null && 'query_timeout' in config) {
    const { query_timeout: own, ...rest } = config as pg.QueryConfig & { query_timeout?: number };
    // As node-postgres reads it: a query's own deadline, else the connection's.
    deadlineMs = own || this.answerDeadlineMs;
    sent = rest;
  }
  if (done !== undefined) {
    send(this, sent, args, deadlineMs, done);
    return undefined;
  }
  return new Promise((resolve, reject) => {
    send(this, sent, args, deadlineMs, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

function send(client: pg.Client, config: unknown, values: unknown, deadlineMs: number, done: Callback): void {
  if (!(deadlineMs > 0)) {
    baseQuery.call(client, config, values, done);
    return;
  }
  let settled = false;
  const timer = setTimeout(() => {
    if (settled) return;
    settled = true;
    done(new Error('Query read timeout'));
  }, deadlineMs);
  baseQuery.call(client, config, values, (err: Error | null, result?: unknown) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    done(err, result);
  });
}

// Installed on the prototype: node-postgres's overloads of `query` are not restated one by one.
(DeadlineClient.prototype as unknown as { query: LooseQuery }).query = deadlineQuery as LooseQuery;
