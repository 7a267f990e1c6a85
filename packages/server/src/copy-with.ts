/**
 * A copy of `base` with `changes` laid over it: the object `{ ...base, ...changes }` makes (the
 * same fields, in the same order, `__proto__` included as a field), made so that on this runtime
 * (Node 20's V8) every copy of one shape shares one hidden class and keeps fast properties.
 *
 * The plain ways each fail one of the two (measured in docs/PERFORMANCE.md, "Fixed: copies of
 * large records in dictionary mode"):
 * - A literal that begins with a spread clones `base`'s hidden class into one that takes no
 *   transitions, so a field added after it (a field, or a second spread that brings new keys)
 *   makes a new hidden class for every copy, and every inline cache that meets them goes
 *   megamorphic; so does a copy of a record of sixty fields, even when the changes only override.
 * - `Object.assign({}, …)` adds every field by keyed store to an object with four in-object
 *   slots; past twelve fields out of object, V8 turns it into a dictionary (a hash table for
 *   every read, no fast JSON): every record of sixteen fields or more.
 * - A literal that begins with a field of its own and then spreads defines the rest through the
 *   transition tree: one hidden class for every copy of a shape, fast at any size. So a copy
 *   begins with `base`'s first key (its value undefined, at once overwritten by the spread, which
 *   keeps the spread's order), whatever the changes.
 */
export function copyWith<T extends object>(base: T, changes: Partial<T>): T;
/** A copy that adds fields `base` does not have (or changes their type): typed as the spread. */
export function copyWith<T extends object, C extends object>(base: T, changes: C): Omit<T, keyof C> & C;
export function copyWith(base: object, changes: object): object {
  const first = firstOwnKey(base);
  // eslint-disable-next-line no-restricted-syntax -- no key to begin with: an empty base adds no fields of its own.
  if (first === undefined) return { ...base, ...changes };
  return { [first]: undefined, ...base, ...changes };
}

/** The first own enumerable string key of `base`, in the order a spread copies keys. */
function firstOwnKey(base: object): string | undefined {
  for (const key in base) if (Object.hasOwn(base, key)) return key;
  return undefined;
}
