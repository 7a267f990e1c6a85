/**
 * A copy of `base` with `changes` laid over it, as `{ ...base, ...changes }` would make, but with
 * the hidden class shared by every copy of one shape. On this runtime (Node 20's V8) an object
 * literal that begins with a spread and is followed by anything that adds a property (a field, or
 * a second spread) gives each copy a hidden class of its own: a new map every time, kept in its
 * parent's transitions until the next full collection, and every inline cache that meets such
 * copies goes megamorphic. Copied onto a fresh object with `Object.assign`, copies of one shape
 * share one map. Measured in docs/PERFORMANCE.md, "Fixed: objects with a shape of their own on the
 * hot path"; the lint rule in eslint.config.js keeps such literals out of the server.
 *
 * `Object.assign` sets each key through assignment, so an own `__proto__` key (JSON.parse makes
 * one from text that names it: an HTTP answer, a broker's message) would become the copy's
 * prototype instead of a field; such a copy is made by spreading, which defines it as a field.
 */
export function copyWith<T extends object>(base: T, changes: Partial<T>): T;
/** A copy that adds fields `base` does not have (or changes their type): typed as the spread. */
export function copyWith<T extends object, C extends object>(base: T, changes: C): Omit<T, keyof C> & C;
export function copyWith(base: object, changes: object): object {
  // eslint-disable-next-line no-restricted-syntax -- the one spread kept: it defines `__proto__` as a field.
  if (Object.hasOwn(base, '__proto__') || Object.hasOwn(changes, '__proto__')) return { ...base, ...changes };
  return Object.assign({}, base, changes);
}
