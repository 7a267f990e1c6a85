import {
  isTerminalTaskStatus,
  type JsonObject,
  type JsonValue,
  type TaskRecord,
  type TaskStatus,
} from '@baton/protocol';

/**
 * Whether a result posted for a task may be applied, before anything is changed. A result is
 * refused (409) when the attempt it is for has ended, or when a worker that does not hold the
 * task sends it, so a late worker learns that its work was not recorded instead of being
 * acknowledged in silence. One exception keeps workers' retries safe: an exact repeat of the
 * result already recorded (the worker posted, the answer was lost, it posts again) is
 * acknowledged again, with nothing changed.
 *
 * An exact repeat: the task has ended with the posted status; the posted output is the recorded
 * one (JSON equality, key order aside; a result that carries no output asks to change none, so
 * it matches any); and the posted worker id, when both name one, is the recorded one.
 *
 * The holder of a task: the worker a hand-out gave it to (`workerId`) while it is IN_PROGRESS on
 * its queue, under that hand-out's lock. A task off any queue (HUMAN, WAIT, an asyncComplete
 * call) or back on its queue (a callback) has no holder, and a result that names no worker
 * claims no hold: both are completions from outside, which Conductor accepts from anyone.
 *
 * The one refusal answered 2xx: a result from the worker that held an attempt its response
 * timeout ended (`lapsed`), as Conductor answers it; nothing changes and it is still counted.
 */
export type ResultVerdict =
  | { readonly kind: 'apply' }
  | { readonly kind: 'repeat' }
  | {
      readonly kind: 'refuse';
      /**
       * `ended`: the attempt has ended; `held`: another worker holds the task; `lapsed`: the
       * worker that held the attempt reports after its response timeout ended it.
       */
      readonly reason: RefusalReason;
      readonly status: TaskStatus;
      readonly message: string;
    };

export type RefusalReason = 'ended' | 'held' | 'lapsed';

/** What a result says, as far as judging it goes (a by-name completion's output is merged). */
export interface PostedResult {
  readonly status: TaskStatus;
  readonly outputData?: JsonObject;
  readonly workerId?: string;
}

/**
 * `merged`: the posted output is merged into the recorded one (completion by name), so it is a
 * repeat when every posted key holds its recorded value.
 */
export function judgeResult(task: TaskRecord, result: PostedResult, merged = false): ResultVerdict {
  const worker = nonEmpty(result.workerId);
  if (isTerminalTaskStatus(task.status)) {
    if (isRepeat(task, result, worker, merged)) return { kind: 'repeat' };
    // The worker Conductor's SDK suite models: it held the attempt, sent no heartbeat past the
    // response timeout, and reports at the end. Conductor answers 200 and ignores the result;
    // the caller answers the same (counted and logged), so such a worker is not failed by an
    // error it cannot act on. Anyone else reporting on an ended attempt gets the 409, and so does
    // that worker once a later attempt was made: the task is being done again, and a 2xx would
    // let it believe its result counted.
    const lapsed =
      task.status === 'TIMED_OUT' &&
      task.retried !== true &&
      worker !== undefined &&
      worker === nonEmpty(task.workerId);
    return {
      kind: 'refuse',
      reason: lapsed ? 'lapsed' : 'ended',
      status: task.status,
      message:
        `Task ${task.taskId} (${task.referenceTaskName}) is ${task.status}: this attempt has ended, so the ` +
        `${result.status} result was not applied` +
        (task.retried === true ? '; a later attempt of the task was made' : ''),
    };
  }
  const holder = holderOf(task);
  if (holder !== undefined && worker !== undefined && worker !== holder) {
    return {
      kind: 'refuse',
      reason: 'held',
      status: task.status,
      message: `Task ${task.taskId} (${task.referenceTaskName}) is ${task.status} and held by worker ${holder}: the result of worker ${worker} was not applied`,
    };
  }
  return { kind: 'apply' };
}

/** The worker holding the task under a hand-out's lock, if any. */
function holderOf(task: TaskRecord): string | undefined {
  if (task.status !== 'IN_PROGRESS' || task.queueName === undefined) return undefined;
  return nonEmpty(task.workerId);
}

function isRepeat(
  task: TaskRecord,
  result: PostedResult,
  worker: string | undefined,
  merged: boolean,
): boolean {
  if (result.status !== task.status) return false;
  const recordedWorker = nonEmpty(task.workerId);
  if (worker !== undefined && recordedWorker !== undefined && worker !== recordedWorker) return false;
  const posted = result.outputData;
  if (posted === undefined) return true;
  if (!merged) return jsonEqual(posted, task.outputData);
  return Object.entries(posted).every(([key, value]) => jsonEqual(value, task.outputData[key]));
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** Equality of JSON values: objects by their keys whatever their order, arrays in order. */
export function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (a === null || b === null || a === undefined || b === undefined) return false;
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i]));
  }
  const keysA = Object.keys(a).filter((k) => a[k] !== undefined);
  const keysB = Object.keys(b).filter((k) => b[k] !== undefined);
  if (keysA.length !== keysB.length) return false;
  return keysA.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual(a[k], b[k]));
}
