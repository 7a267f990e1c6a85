import { Ajv, type Options } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { RETRY_LOGICS, TIMEOUT_POLICIES, type ValidationError } from '@baton/protocol';
import { INT32_MAX, MAX_RETRY_COUNT } from '../../bounds/ranges.js';
import { TASK_DEFAULTS } from '../task-config.js';
import {
  checkBoolean,
  checkEnum,
  checkInteger,
  checkObject,
  checkString,
  checkStringList,
  display,
  isInteger,
  isNonEmptyString,
  isRecord,
  join,
  problem,
  type JsonRecord,
} from './common.js';

/**
 * Registration checks of a task definition (Conductor's `TaskDef` constraints and
 * `TaskTimeoutConstraint`). Lists every problem found.
 */
export function checkTaskDef(def: unknown): ValidationError[] {
  return checkTaskDefAt(def, '');
}

/**
 * As `checkTaskDef`, with `prefix` before every path (`tasks[0].taskDefinition` for an inline
 * definition). `inline`: a task definition inside a workflow definition, where Conductor does
 * not apply `TaskTimeoutConstraint`'s response-timeout rule (it is a warning there:
 * `taskDefWarnings`).
 */
export function checkTaskDefAt(def: unknown, prefix: string, inline = false): ValidationError[] {
  if (!isRecord(def)) return [problem(prefix, 'TaskDef must be a JSON object', def)];
  const errors: ValidationError[] = [];
  const name = def.name;
  if (!isNonEmptyString(name)) {
    errors.push(problem(join(prefix, 'name'), 'TaskDef name cannot be null or empty', name ?? null));
  }
  checkString(def, 'description', prefix, errors);
  checkString(def, 'ownerEmail', prefix, errors);

  const atLeast = (field: string, min: number) => (value: number) =>
    `TaskDef ${field}: ${value} must be >= ${min}`;
  for (const field of [
    'retryCount',
    'timeoutSeconds',
    'retryDelaySeconds',
    'pollTimeoutSeconds',
    'maxRetryDelaySeconds',
    'backoffJitterMs',
    'totalTimeoutSeconds',
    'concurrentExecLimit',
    'rateLimitPerFrequency',
    'rateLimitFrequencyInSeconds',
  ]) {
    checkInteger(
      def,
      field,
      0,
      atLeast(field, 0),
      prefix,
      errors,
      field === 'retryCount' ? MAX_RETRY_COUNT : INT32_MAX,
    );
  }
  checkInteger(
    def,
    'responseTimeoutSeconds',
    1,
    (value) => `TaskDef responseTimeoutSeconds: ${value} should be minimum 1 second`,
    prefix,
    errors,
  );
  checkInteger(def, 'backoffScaleFactor', 1, atLeast('backoffScaleFactor', 1), prefix, errors);

  checkEnum(
    def,
    'timeoutPolicy',
    TIMEOUT_POLICIES,
    (value) => `TaskDef timeoutPolicy: ${display(value)} is not one of ${TIMEOUT_POLICIES.join(', ')}`,
    prefix,
    errors,
  );
  checkEnum(
    def,
    'retryLogic',
    RETRY_LOGICS,
    (value) => `TaskDef retryLogic: ${display(value)} is not one of ${RETRY_LOGICS.join(', ')}`,
    prefix,
    errors,
  );
  checkStringList(def, 'inputKeys', prefix, errors);
  checkStringList(def, 'outputKeys', prefix, errors);
  checkObject(def, 'inputTemplate', prefix, errors);
  checkBoolean(def, 'enforceSchema', prefix, errors);

  checkTimeouts(def, prefix, errors, inline);
  checkRateLimit(def, prefix, errors);
  for (const field of ['inputSchema', 'outputSchema']) {
    const schema = def[field];
    if (schema === undefined || schema === null) continue;
    const message = schemaProblem(schema);
    if (message !== undefined) errors.push(problem(join(prefix, field), `${field}: ${message}`, schema));
  }
  return errors;
}

/** Conductor's `TaskTimeoutConstraint`, on the values the task would run with (defaults included). */
function checkTimeouts(def: JsonRecord, prefix: string, errors: ValidationError[], inline: boolean): void {
  const name = typeof def.name === 'string' ? def.name : 'null';
  const timeout = valueOr(def.timeoutSeconds, TASK_DEFAULTS.timeoutSeconds);
  const total = valueOr(def.totalTimeoutSeconds, TASK_DEFAULTS.totalTimeoutSeconds);
  if (timeout === undefined || total === undefined) return; // reported above
  const responseProblem = responseTimeoutProblem(def);
  if (responseProblem !== undefined && !inline) {
    const { message, response } = responseProblem;
    errors.push(problem(join(prefix, 'responseTimeoutSeconds'), message, response));
  }
  if (total > 0 && timeout > total) {
    errors.push(
      problem(
        join(prefix, 'timeoutSeconds'),
        `TaskDef: ${name} timeoutSeconds: ${timeout} must be less than or equal to totalTimeoutSeconds: ${total}`,
        timeout,
      ),
    );
  }
}

/** Conductor's rule that a response timeout fits in the task's timeout, broken: its message and the value. */
function responseTimeoutProblem(def: JsonRecord): { message: string; response: number } | undefined {
  const name = typeof def.name === 'string' ? def.name : 'null';
  const timeout = valueOr(def.timeoutSeconds, TASK_DEFAULTS.timeoutSeconds);
  const response = valueOr(def.responseTimeoutSeconds, TASK_DEFAULTS.responseTimeoutSeconds);
  if (timeout === undefined || response === undefined || timeout <= 0 || response <= timeout)
    return undefined;
  const message = `TaskDef: ${name} responseTimeoutSeconds: ${response} must be less than timeoutSeconds: ${timeout}`;
  return { message, response };
}

/**
 * What registration accepts in an inline task definition but a registered one would be refused
 * for (the response timeout longer than the timeout: the task times out first), as warnings.
 */
export function taskDefWarnings(def: unknown): string[] {
  if (!isRecord(def)) return [];
  const message = responseTimeoutProblem(def);
  return message === undefined ? [] : [message.message];
}

/** The value when it is a usable integer, the default when absent, undefined when invalid. */
function valueOr(value: unknown, fallback: number): number | undefined {
  if (value === undefined || value === null) return fallback;
  return isInteger(value) ? value : undefined;
}

function checkRateLimit(def: JsonRecord, prefix: string, errors: ValidationError[]): void {
  const perFrequency = def.rateLimitPerFrequency ?? undefined;
  const frequency = def.rateLimitFrequencyInSeconds ?? undefined;
  if ((perFrequency === undefined) === (frequency === undefined)) return;
  const missing = perFrequency === undefined ? 'rateLimitPerFrequency' : 'rateLimitFrequencyInSeconds';
  errors.push(
    problem(
      join(prefix, missing),
      'rateLimitPerFrequency and rateLimitFrequencyInSeconds must be given together',
    ),
  );
}

const AJV_OPTIONS: Options = { allErrors: true, strict: false, validateFormats: false, logger: false };

/**
 * Why a schema does not compile, or undefined when it does. A JSON Schema object is compiled
 * with ajv (draft-07 by default; 2019-09 and 2020-12 by `$schema`). Conductor's `SchemaDef`
 * wrapper (`{name, type: 'JSON', data}`) is accepted with its `data` as the schema.
 */
export function schemaProblem(schema: unknown): string | undefined {
  if (!isRecord(schema)) return 'must be a JSON Schema object';
  let body: unknown = schema;
  const type = schema.type;
  if (type === 'JSON' || type === 'AVRO' || type === 'PROTOBUF') {
    if (type !== 'JSON') return `schema type ${type} is not supported (only JSON)`;
    body = schema.data;
    if (!isRecord(body)) return 'a JSON schema definition needs its schema in data';
  }
  try {
    compileSchema(body as JsonRecord);
    return undefined;
  } catch (err) {
    return `does not compile: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/** One ajv per JSON Schema dialect, made on first use (making one costs ~10 ms). */
const compilers = new Map<string, Ajv | Ajv2019 | Ajv2020>();

export function compilerFor(dialect: string): Ajv | Ajv2019 | Ajv2020 {
  const key = dialect.includes('2020-12') ? '2020-12' : dialect.includes('2019-09') ? '2019-09' : 'draft-07';
  let ajv = compilers.get(key);
  if (!ajv) {
    ajv =
      key === '2020-12'
        ? new Ajv2020(AJV_OPTIONS)
        : key === '2019-09'
          ? new Ajv2019(AJV_OPTIONS)
          : new Ajv(AJV_OPTIONS);
    compilers.set(key, ajv);
  }
  return ajv;
}

/**
 * Compiles a JSON Schema (draft-07 by default; 2019-09 and 2020-12 by `$schema`). Nothing is
 * kept in ajv's registry afterwards, so schemas never collide on `$id`.
 */
export function compileSchema(schema: JsonRecord): (data: unknown) => boolean {
  const ajv = compilerFor(typeof schema.$schema === 'string' ? schema.$schema : '');
  try {
    const validate = ajv.compile(schema);
    return (data: unknown) => validate(data) === true;
  } finally {
    ajv.removeSchema(schema);
    if (typeof schema.$id === 'string') ajv.removeSchema(schema.$id);
  }
}
