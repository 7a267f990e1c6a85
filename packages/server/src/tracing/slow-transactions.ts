import { SpanKind } from '@opentelemetry/api';

import type { Store, Tx } from '../store/store.js';
import type { Tracing } from './tracing.js';

/**
 * Store transactions that took at least `thresholdMs` become spans under the span active when
 * they began (a request, a call, an event handler): the slow ones are worth seeing, every
 * statement is not. Fast transactions cost a clock read.
 */
export function traceSlowTransactions(store: Store, tracing: Tracing, thresholdMs: number): void {
  const transaction = store.transaction.bind(store);
  const read = store.read.bind(store);
  const timed = async <T>(kind: 'transaction' | 'read', run: () => Promise<T>): Promise<T> => {
    const parent = tracing.current();
    if (parent === undefined) return run();
    const started = Date.now();
    let failed = false;
    try {
      return await run();
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      const ended = Date.now();
      if (ended - started >= thresholdMs) {
        const span = tracing.startSpan(
          `store ${kind}`,
          SpanKind.CLIENT,
          {
            'db.system.name': store.dialect === 'postgres' ? 'postgresql' : 'sqlite',
            'baton.store.failed': failed,
          },
          parent,
          started,
        );
        span.end(ended);
      }
    }
  };
  store.transaction = <T>(fn: (tx: Tx) => Promise<T>, options?: Parameters<Store['transaction']>[1]) =>
    timed('transaction', () => transaction(fn, options));
  store.read = <T>(fn: (tx: Tx) => Promise<T>) => timed('read', () => read(fn));
}
