import type { Store, Tx } from '../../src/store/store.js';

/** `target`'s member `key`, a method bound to it. */
function member<T extends object>(target: T, key: string | symbol): unknown {
  const value: unknown = Reflect.get(target, key, target);
  return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
}

/**
 * The store with some of its transactions' methods replaced: `overrides(tx)` answers the
 * replacements for one transaction (`transaction` and `read` alike); everything else, the
 * transaction options included, passes through.
 */
export function overridingTx(store: Store, overrides: (tx: Tx) => Partial<Tx>): Store {
  const wrap = (tx: Tx): Tx => {
    const replaced: Partial<Tx> = overrides(tx);
    return new Proxy(tx, {
      get: (target, key) => (key in replaced ? Reflect.get(replaced, key) : member(target, key)),
    });
  };
  return new Proxy(store, {
    get(target, key) {
      if (key !== 'transaction' && key !== 'read') return member(target, key);
      const run = member(target, key) as (
        fn: (tx: Tx) => Promise<unknown>,
        ...rest: unknown[]
      ) => Promise<unknown>;
      return (fn: (tx: Tx) => Promise<unknown>, ...rest: unknown[]) => run((tx: Tx) => fn(wrap(tx)), ...rest);
    },
  });
}
