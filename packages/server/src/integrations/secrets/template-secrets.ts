import { randomBytes } from 'node:crypto';

import type { JsonObject, JsonValue, TaskRecord } from '@baton/protocol';

/**
 * The secret references one call may honour: exactly those the task's definition wrote
 * (`TaskRecord.templateSecrets`, marked by the engine while it evaluated the template). Before
 * the handler sees the input, each marked `${workflow.secrets.NAME}` is swapped for a token
 * made for this call only (a random nonce and the name); `resolve` then puts values in for
 * those tokens and nothing else. Placeholder text that arrived as data (run input, an output,
 * a variable, an event payload) is never marked, so it stays the literal text it is, and no
 * data can spell a token it has never seen. What the handler answers gets the tokens turned
 * back into `${workflow.secrets.NAME}` before anything is stored.
 */

const REFERENCE = /^\$\{\s*(?:\$\.)?workflow\.secrets\.([A-Za-z0-9_-]{1,128})\s*\}$/;

export class TemplateSecrets {
  private readonly nonce = randomBytes(16).toString('hex');
  private readonly tokens = new RegExp(`bsecret\\.${this.nonce}\\.([A-Za-z0-9_-]{1,128})\\.bsecret`, 'g');

  /** The task's input as the handler gets it: marked references as this call's tokens. */
  input(task: Pick<TaskRecord, 'inputData' | 'templateSecrets'>): JsonObject {
    const refs = task.templateSecrets;
    if (refs === undefined || refs.length === 0) return task.inputData;
    const input = structuredClone(task.inputData);
    const byPath = new Map<string, { path: Array<string | number>; spans: Array<[number, number]> }>();
    for (const ref of refs) {
      const key = JSON.stringify(ref.path);
      const entry = byPath.get(key) ?? { path: ref.path, spans: [] };
      entry.spans.push([ref.start, ref.end]);
      byPath.set(key, entry);
    }
    for (const { path, spans } of byPath.values()) {
      const parentPath = path.slice(0, -1);
      const leaf = path[path.length - 1];
      const parent = parentPath.reduce<unknown>(
        (node, step) =>
          node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[step] : undefined,
        input,
      );
      if (leaf === undefined || parent === null || typeof parent !== 'object') continue;
      const holder = parent as Record<string | number, unknown>;
      const text = holder[leaf];
      if (typeof text !== 'string') continue;
      holder[leaf] = this.swap(text, spans);
    }
    return input;
  }

  /** Secret names whose tokens `value` holds. */
  names(value: JsonValue): string[] {
    const names = new Set<string>();
    visit(value, (text) => {
      for (const match of text.matchAll(this.tokens)) if (match[1] !== undefined) names.add(match[1]);
    });
    return [...names];
  }

  /** A copy of `value` with this call's tokens replaced by the values (a name without one: the placeholder text). */
  resolve<T extends JsonValue>(value: T, values: ReadonlyMap<string, string>): T {
    return mapStrings(value, (text) =>
      text.replace(this.tokens, (_whole, name: string) => values.get(name) ?? placeholder(name)),
    ) as T;
  }

  /** Text a handler answered, with this call's tokens as `${workflow.secrets.NAME}` again. */
  restore(text: string): string {
    return text.includes(this.nonce)
      ? text.replace(this.tokens, (_whole, name: string) => placeholder(name))
      : text;
  }

  restoreJson<T extends JsonValue>(value: T): T {
    return mapStrings(value, (text) => this.restore(text), true) as T;
  }

  /** The marked spans of one string (end first, so offsets stay true), each only if it is a whole reference. */
  private swap(text: string, spans: Array<[number, number]>): string {
    let out = text;
    let floor = Infinity;
    for (const [start, end] of [...spans].sort((a, b) => b[0] - a[0])) {
      if (!(Number.isInteger(start) && Number.isInteger(end) && start >= 0 && end <= floor && start < end))
        continue;
      const name = REFERENCE.exec(out.slice(start, end))?.[1];
      if (name === undefined) continue;
      out = `${out.slice(0, start)}bsecret.${this.nonce}.${name}.bsecret${out.slice(end)}`;
      floor = start;
    }
    return out;
  }
}

function placeholder(name: string): string {
  return `\${workflow.secrets.${name}}`;
}

function visit(value: unknown, see: (text: string) => void): void {
  if (typeof value === 'string') see(value);
  else if (Array.isArray(value)) for (const item of value) visit(item, see);
  else if (value !== null && typeof value === 'object')
    for (const item of Object.values(value)) visit(item, see);
}

function mapStrings(value: JsonValue, map: (text: string) => string, keys = false): JsonValue {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map, keys));
  if (value !== null && typeof value === 'object') {
    const out: JsonObject = {};
    for (const [key, item] of Object.entries(value)) out[keys ? map(key) : key] = mapStrings(item, map, keys);
    return out;
  }
  return value;
}
