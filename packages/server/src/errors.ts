import {
  ERROR_REGISTRY,
  type ErrorCode,
  type SpecificErrorCode,
  type ValidationError,
  errorStatus,
} from '@baton/protocol';

import { ERROR_MESSAGES } from './error-messages.js';

/** The `{name}` parameters of a message template. */
type ParamNames<T extends string> = T extends `${string}{${infer P}}${infer Rest}`
  ? P | ParamNames<Rest>
  : never;

type Template<C extends SpecificErrorCode> = (typeof ERROR_MESSAGES)[C]['message'];

/** A value a template takes (absent ones read as an empty text). */
type ParamValue = string | number | boolean | null | undefined;

/** What a throw site fills into a code's template: exactly its parameters. */
export type ErrorParams<C extends SpecificErrorCode> = {
  readonly [K in ParamNames<Template<C>>]: ParamValue;
};

/** Codes whose template takes no parameter: thrown without a params object. */
type PlainCode = {
  [C in SpecificErrorCode]: ParamNames<Template<C>> extends never ? C : never;
}[SpecificErrorCode];

/**
 * Every error Baton answers with: a specific code from the registry (`ERROR_REGISTRY`), its
 * class (the generic `code`, which decides the HTTP status) and the message made from the
 * code's template. Built only by `fail` (and `failWith` for a code chosen at run time), so
 * every refusal has a registered code; the error tests sweep the sources for other ways.
 */
export class BatonError extends Error {
  override name = 'BatonError';
  readonly code: ErrorCode;
  readonly retryable: boolean;
  constructor(
    readonly errorCode: SpecificErrorCode,
    message: string,
    readonly validationErrors?: ValidationError[],
  ) {
    super(message);
    this.code = ERROR_REGISTRY[errorCode].class;
    const entry: { message: string; retryable?: boolean } = ERROR_MESSAGES[errorCode];
    this.retryable = entry.retryable ?? false;
  }
  get status(): number {
    return errorStatus(this.errorCode);
  }
}

/** Fills a template's `{name}` parameters (a missing value reads as an empty text). */
export function errorMessage(code: SpecificErrorCode, params: Readonly<Record<string, ParamValue>>): string {
  return ERROR_MESSAGES[code].message.replace(/\{(\w+)\}/g, (_whole, name: string) => {
    const value = params[name];
    return value === undefined || value === null ? '' : String(value);
  });
}

/**
 * The error of a registered code: `throw fail('RUN_NOT_FOUND', { workflowId })`. The
 * parameters are checked against the code's template at compile time.
 */
export function fail<C extends PlainCode>(
  code: C,
  params?: ErrorParams<C>,
  validationErrors?: ValidationError[],
): BatonError;
export function fail<C extends SpecificErrorCode>(
  code: C,
  params: ErrorParams<C>,
  validationErrors?: ValidationError[],
): BatonError;
export function fail(
  code: SpecificErrorCode,
  params: Readonly<Record<string, ParamValue>> = {},
  validationErrors?: ValidationError[],
): BatonError {
  return new BatonError(code, errorMessage(code, params), validationErrors);
}

/** A refusal whose code and text were decided elsewhere (the engine's run-control rejections). */
export function failWith(code: SpecificErrorCode, detail: string): BatonError {
  return new BatonError(code, errorMessage(code, { detail }));
}

/** Normalises anything thrown into an Error, so catch blocks never handle `unknown` twice. */
export function coerceError(raw: unknown): Error & { code?: unknown } {
  if (raw instanceof Error) return raw;
  return new Error(typeof raw === 'string' ? raw : JSON.stringify(raw));
}
