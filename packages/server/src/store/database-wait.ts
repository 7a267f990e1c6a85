import { storeFault } from './store-faults.js';

/**
 * Start-up steps that need the database (migrations, first reads) run again while the database
 * is away, up to a bound: a node started during an outage, or whose migration lost its
 * connection half-way, comes up once the database is back instead of exiting. Each migration
 * step commits with its version row, so running `migrate()` again resumes where it stopped.
 * An error that is not a database fault (a schema too new, a refused login) fails at once, and
 * so does the last fault once the bound has passed: the caller reports it in one line.
 */
export interface DatabaseWaitOptions {
  /** How long to keep trying, in ms from the first failure; 0 = fail at once. */
  waitMs: number;
  /** Told of each failure that will be tried again (a log line). */
  onRetry?: (reason: string, retryInMs: number) => void;
  /** Injected for tests. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** First and longest pause between tries. */
const FIRST_PAUSE_MS = 250;
const LONGEST_PAUSE_MS = 5_000;

export async function whileDatabaseAway<T>(step: () => Promise<T>, options: DatabaseWaitOptions): Promise<T> {
  const now = options.now ?? (() => performance.now());
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  let deadline: number | undefined;
  let pause = FIRST_PAUSE_MS;
  for (;;) {
    try {
      return await step();
    } catch (err) {
      const reason = storeFault(err);
      if (reason === undefined) throw err;
      deadline ??= now() + options.waitMs;
      const left = deadline - now();
      if (left <= 0) throw err;
      const wait = Math.min(pause, left);
      options.onRetry?.(reason, wait);
      await sleep(wait);
      pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
    }
  }
}

/** How a node waits for its database at start: PostgreSQL up to `waitMs`, each retry logged; SQLite
 * (a local file, no outage to wait out) not at all. */
export function startWait(
  dialect: 'sqlite' | 'postgres',
  waitMs: number,
  logger: { warn(fields: object, message: string): void },
): DatabaseWaitOptions {
  return {
    waitMs: dialect === 'postgres' ? waitMs : 0,
    onRetry: (reason, retryInMs) =>
      logger.warn({ reason, retryInMs }, 'database unavailable while starting; trying again'),
  };
}
