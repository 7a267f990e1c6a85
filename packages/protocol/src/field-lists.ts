/**
 * Lists of a body type's field names, checked by TypeScript against the type: the server's
 * OpenAPI schemas are tested against these lists at run time, so a field added to a type, a
 * list or a schema alone fails the build or the tests.
 */

/** The named keys of `T` (an index signature `[extra: string]: unknown` left out). */
export type NamedKeys<T> = keyof {
  [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K];
};

/**
 * `namedFields<T>()([...])`: the list as given, compiling only when it holds named keys of `T`
 * and misses none of them.
 */
export function namedFields<T>() {
  return <const L extends readonly NamedKeys<T>[]>(
    list: L &
      ([Exclude<NamedKeys<T>, L[number]>] extends [never]
        ? unknown
        : { missing: Exclude<NamedKeys<T>, L[number]> }),
  ): L => list;
}
