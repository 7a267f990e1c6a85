/**
 * `value` with every object and array inside it frozen, for what a node keeps and shares between
 * reads (a kept task row's fields, a run's definition snapshot): no reader can change it for the
 * others. One already frozen is left as it is, with what it holds (it was frozen whole).
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
