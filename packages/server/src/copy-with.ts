/**
 * A copy of `base` with `changes` laid over it, as `{ ...base, ...changes }` would make, but with
 * the hidden class shared by every copy of one shape. On this runtime (Node 20's V8) an object
 * literal that begins with a spread and then adds a property the spread did not bring gives each
 * copy a hidden class of its own: a new map every time, kept in its parent's transitions until the
 * next full collection, and every inline cache that meets such copies goes megamorphic. Copied
 * onto a fresh object with `Object.assign`, copies of one shape share one map. Measured in
 * docs/PERFORMANCE.md, "Fixed: objects with a shape of their own on the hot path".
 */
export function copyWith<T extends object>(base: T, changes: Partial<T>): T {
  return Object.assign({}, base, changes);
}
