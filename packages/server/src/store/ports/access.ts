/**
 * Whether a port method reads or writes. Each port file declares a table of its methods
 * (`satisfies PortAccess<ThatPort>`, so the table cannot miss a method or name one that is not
 * there); `tx-access.ts` wraps every listed method of a dialect's `Tx` with the check that
 * refuses a write inside `read()` and any use after the transaction ended.
 */
export type Access = 'read' | 'write';

/** One entry per method of port `P`, no more, no less. */
export type PortAccess<P> = { readonly [K in MethodsOf<P>]: Access };

/** The names of `P`'s function-valued members. */
export type MethodsOf<P> = {
  [K in keyof P]-?: P[K] extends (...args: never[]) => unknown ? K : never;
}[keyof P] &
  string;
