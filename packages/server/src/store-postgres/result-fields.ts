import pg from 'pg';

/**
 * What node-postgres does with a statement's column descriptions, done once per shape.
 *
 * For every result that has rows, PostgreSQL sends the columns' descriptions and node-postgres
 * (`lib/result.js`, `addFields`) looks up a parser for each column and builds the empty row that
 * each row of the result is copied from. It builds that row from an `Object.create(null)` object,
 * which V8 keeps as a dictionary, and then spreads it: 6 to 9 µs for ten columns, paid again by
 * every result although a node sends the same few dozen statements all day (the lock, the decide
 * set, the claim: two or three results with rows a step; docs/PERFORMANCE.md, "Built: a
 * statement's columns described once"). Here the parsers and the empty row are kept per shape
 * (the columns' names, types and formats, in order) and shared by every result of that shape;
 * the row is built as an ordinary object, so each row's copy of it takes V8's fast path.
 *
 * Only results parsed with a types object registered by `settledTypes` take this path: the
 * parsers are looked up once, so they must not change afterwards, which Baton's own types
 * object guarantees (it is set up before its first query and never touched again, and what it
 * does not override falls to pg's global parsers, which Baton never changes). Each client
 * wraps the types it is given in overrides of its own (`lib/type-overrides.js`); while those hold
 * none (Baton never sets a parser on a client), the client parses exactly as the types it wraps.
 * Anything else (pg's global parsers, which `setTypeParser` may change at any time; a client
 * with overrides) takes node-postgres's own path.
 */

interface FieldDescription {
  readonly name: string;
  readonly dataTypeID: number;
  readonly format?: string;
}

type Parser = (value: string) => unknown;

interface TypesObject {
  getTypeParser(oid: number, format: string): Parser;
}

/** A client's own overrides around the types it was given (lib/type-overrides.js). */
interface ClientTypes extends TypesObject {
  _types?: TypesObject;
  text?: Record<string, unknown>;
  binary?: Record<string, unknown>;
}

/** The parts of node-postgres's `Result` that `addFields` sets (lib/result.js). */
interface ResultInternals {
  fields: readonly FieldDescription[];
  _parsers: Parser[] | undefined;
  _types: ClientTypes | undefined;
  _prebuiltEmptyResultObject: Record<string, null> | null;
}

interface ShapeCache {
  count: number;
  byKey: Map<string, Shape[]>;
}

interface Shape {
  readonly names: readonly string[];
  readonly types: readonly number[];
  readonly formats: readonly string[];
  readonly parsers: Parser[];
  readonly empty: Record<string, null>;
}

/**
 * Shapes kept per types object. A node's statements are fixed texts, so their shapes are few;
 * the bound only keeps a caller that makes up columns (a search over many shapes) from growing
 * it, and past it results are described the ordinary way.
 */
const MAX_SHAPES = 512;

const shapesByTypes = new WeakMap<object, ShapeCache>();

/** Registers `types` as settled (its parsers will not change) and answers it. */
export function settledTypes<T extends object>(types: T): T {
  installOnce();
  shapesByTypes.set(types, { count: 0, byKey: new Map() });
  return types;
}

let installed = false;

function installOnce(): void {
  if (installed) return;
  installed = true;
  const prototype = (pg as unknown as { Result: { prototype: ResultInternals & Describer } }).Result
    .prototype;
  const original = prototype.addFields;
  prototype.addFields = function addFields(this: ResultInternals, descriptions: readonly FieldDescription[]) {
    const types = this._types;
    const cache = types === undefined || descriptions.length === 0 ? undefined : settledCacheOf(types);
    if (types === undefined || cache === undefined) {
      original.call(this, descriptions);
      return;
    }
    const shape = shapeOf(cache, types, descriptions);
    if (shape === undefined) {
      original.call(this, descriptions);
      return;
    }
    this.fields = descriptions;
    // Shared by every result of the shape; node-postgres only reads them.
    this._parsers = shape.parsers;
    this._prebuiltEmptyResultObject = shape.empty;
  };
}

interface Describer {
  addFields: (this: ResultInternals, descriptions: readonly FieldDescription[]) => void;
}

/** The shapes of a settled types object, directly or through a client's empty overrides. */
function settledCacheOf(types: ClientTypes): ShapeCache | undefined {
  const direct = shapesByTypes.get(types);
  if (direct !== undefined) return direct;
  const inner = types._types;
  if (inner === undefined || !isEmpty(types.text) || !isEmpty(types.binary)) return undefined;
  return shapesByTypes.get(inner);
}

function isEmpty(overrides: Record<string, unknown> | undefined): boolean {
  if (overrides === undefined) return true;
  for (const _ in overrides) return false;
  return true;
}

function formatOf(d: FieldDescription): string {
  return d.format || 'text';
}

function shapeOf(
  cache: ShapeCache,
  types: TypesObject,
  descriptions: readonly FieldDescription[],
): Shape | undefined {
  const first = descriptions[0] as FieldDescription;
  const key = `${descriptions.length}:${first.name}`;
  const candidates = cache.byKey.get(key);
  if (candidates !== undefined)
    for (const shape of candidates) if (matches(shape, descriptions)) return shape;
  if (cache.count >= MAX_SHAPES) return undefined;
  const empty: Record<string, null> = {};
  for (const d of descriptions) empty[d.name] = null;
  const shape: Shape = {
    names: descriptions.map((d) => d.name),
    types: descriptions.map((d) => d.dataTypeID),
    formats: descriptions.map(formatOf),
    parsers: descriptions.map((d) => types.getTypeParser(d.dataTypeID, formatOf(d))),
    empty,
  };
  cache.count++;
  if (candidates === undefined) cache.byKey.set(key, [shape]);
  else candidates.push(shape);
  return shape;
}

function matches(shape: Shape, descriptions: readonly FieldDescription[]): boolean {
  if (shape.names.length !== descriptions.length) return false;
  for (let i = 0; i < descriptions.length; i++) {
    const d = descriptions[i] as FieldDescription;
    if (d.name !== shape.names[i] || d.dataTypeID !== shape.types[i] || formatOf(d) !== shape.formats[i])
      return false;
  }
  return true;
}
