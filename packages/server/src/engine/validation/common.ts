import type { ValidationError } from '@baton/protocol';

import { INT32_MAX } from '../../bounds/ranges.js';

/** Small helpers shared by the definition checks (inputs are any JSON, so every read is typed here). */

export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

export function isInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value);
}

/** `prefix` + `field`, with a dot between when both are given. */
export function join(prefix: string, field: string): string {
  if (prefix === '') return field;
  return field.startsWith('[') ? `${prefix}${field}` : `${prefix}.${field}`;
}

export function problem(path: string, message: string, invalidValue?: unknown): ValidationError {
  return invalidValue === undefined ? { path, message } : { path, message, invalidValue };
}

type FieldCheck = (obj: JsonRecord, field: string, prefix: string, errors: ValidationError[]) => void;

/** A check that pushes a problem when `obj[field]` is given (not null) and fails `test`. */
function fieldCheck(test: (value: unknown) => boolean, what: string): FieldCheck {
  return (obj, field, prefix, errors) => {
    const value = obj[field];
    if (value !== undefined && value !== null && !test(value)) {
      errors.push(problem(join(prefix, field), `${field} must be ${what}`, value));
    }
  };
}

export const checkBoolean: FieldCheck = fieldCheck((v) => typeof v === 'boolean', 'a boolean');
export const checkString: FieldCheck = fieldCheck((v) => typeof v === 'string', 'a string');
export const checkObject: FieldCheck = fieldCheck(isRecord, 'a JSON object');
export const checkStringList: FieldCheck = fieldCheck(
  (v) => Array.isArray(v) && v.every((item) => typeof item === 'string'),
  'a list of strings',
);

/** Pushes a problem when `obj[field]` is given and is not one of `allowed`. */
export function checkEnum(
  obj: JsonRecord,
  field: string,
  allowed: readonly string[],
  message: (value: unknown) => string,
  prefix: string,
  errors: ValidationError[],
): void {
  const value = obj[field];
  if (value === undefined || value === null) return;
  if (typeof value !== 'string' || !allowed.includes(value)) {
    errors.push(problem(join(prefix, field), message(value), value));
  }
}

/**
 * Pushes a problem when `obj[field]` is given and is not an integer in `min … max`.
 * `tooSmall` words the lower range problem; a non-integer gets `<field> must be an integer`.
 * `max` defaults to 2^31 − 1, the bounds policy's ceiling for every integer of a definition
 * (nested tasks included, which no route schema reaches).
 */
export function checkInteger(
  obj: JsonRecord,
  field: string,
  min: number,
  tooSmall: (value: number) => string,
  prefix: string,
  errors: ValidationError[],
  max: number = INT32_MAX,
): void {
  const value = obj[field];
  if (value === undefined || value === null) return;
  if (!isInteger(value)) {
    errors.push(problem(join(prefix, field), `${field} must be an integer`, value));
  } else if (value < min) {
    errors.push(problem(join(prefix, field), tooSmall(value), value));
  } else if (value > max) {
    errors.push(problem(join(prefix, field), `${field}: ${value} must be <= ${max}`, value));
  }
}

export function display(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}
