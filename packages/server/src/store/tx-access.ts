import type { Access, MethodsOf } from './ports/access.js';
import { ARCHIVE_ACCESS } from './ports/archive.js';
import { AUTH_ACCESS } from './ports/auth.js';
import { DEFINITIONS_ACCESS } from './ports/definitions.js';
import { INTEGRATIONS_ACCESS } from './ports/integrations.js';
import { LIMITS_ACCESS } from './ports/limits.js';
import { MAILBOX_ACCESS } from './ports/mailbox.js';
import { QUEUE_ACCESS } from './ports/queue.js';
import { RUNS_ACCESS } from './ports/runs.js';
import { SEARCH_ACCESS } from './ports/search.js';
import { TIMERS_ACCESS } from './ports/timers.js';
import type { TxState } from './sql-common.js';
import type { Tx } from './store.js';

/** Every method of `Tx`, read or write: the port tables put together. */
export const TX_ACCESS: { readonly [K in MethodsOf<Tx>]: Access } = {
  ...DEFINITIONS_ACCESS,
  // eslint-disable-next-line no-restricted-syntax -- one table, made once when the module loads.
  ...RUNS_ACCESS,
  ...SEARCH_ACCESS,
  ...ARCHIVE_ACCESS,
  ...QUEUE_ACCESS,
  ...LIMITS_ACCESS,
  ...TIMERS_ACCESS,
  ...MAILBOX_ACCESS,
  ...INTEGRATIONS_ACCESS,
  ...AUTH_ACCESS,
};

/** What `guardMethods` needs of an implementation: the state of its transaction. */
interface Guarded {
  readonly state: TxState;
}

type Method = (this: Guarded, ...args: unknown[]) => unknown;

/**
 * Wraps each method named in `access` on a `Tx` (or `EventsTx`) implementation's prototype with
 * `state.check(name, write)`: the name comes from the table's key, so it cannot differ from the
 * method, and no method body repeats the check. Call once per class, on the class the store
 * instantiates (inherited methods are wrapped there too). Methods must be prototype methods, not
 * arrow-function properties, which an instance would hold in front of the wrapper (the
 * store suites call every method after its transaction ended to prove each is checked).
 */
export function guardMethods<T extends object>(
  implementation: abstract new (...args: never[]) => T,
  access: { readonly [K in MethodsOf<T>]?: Access },
): void {
  const proto = implementation.prototype as Record<string, unknown>;
  for (const [name, kind] of Object.entries(access) as Array<[string, Access]>) {
    const original = proto[name];
    if (typeof original !== 'function')
      throw new Error(`store: ${implementation.name} has no method ${name} to guard`);
    const method = original as Method;
    const write = kind === 'write';
    const guarded: Method = function (this: Guarded, ...args: unknown[]): unknown {
      try {
        this.state.check(name, write);
      } catch (error) {
        // Port methods answer promises: a refusal is a rejection, as from an async method.
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
      return method.apply(this, args);
    };
    Object.defineProperty(guarded, 'name', { value: name });
    proto[name] = guarded;
  }
}
