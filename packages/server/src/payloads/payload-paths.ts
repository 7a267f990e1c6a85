import { BlobKeyError, checkBlobKey } from '../blobs/blob-store.js';
import { fail } from '../errors.js';
import { newId } from '../ids.js';

/**
 * Where external payloads live in blob storage. Signed URLs are only ever made for paths under
 * this area, so a worker can never read or overwrite an archived run or a health probe.
 */
export const PAYLOAD_AREA = 'payloads/';

/** Conductor's `payloadType` values. */
export const PAYLOAD_TYPES = ['WORKFLOW_INPUT', 'WORKFLOW_OUTPUT', 'TASK_INPUT', 'TASK_OUTPUT'] as const;
export type PayloadType = (typeof PAYLOAD_TYPES)[number];

export const PAYLOAD_OPERATIONS = ['READ', 'WRITE'] as const;
export type PayloadOperation = (typeof PAYLOAD_OPERATIONS)[number];

/** A fresh path for a payload of this type (`payloads/task_output/<uuid>.json`). */
export function newPayloadPath(type: PayloadType): string {
  return `${PAYLOAD_AREA}${type.toLowerCase()}/${newId()}.json`;
}

/** Where the input of a handed-out task goes when it is too large to send inline. */
export function taskInputPath(taskId: string): string {
  return `${PAYLOAD_AREA}task_input/${taskId}.json`;
}

/** True when `path` is a plain blob key inside the payload area. */
export function isPayloadPath(path: string): boolean {
  try {
    checkBlobKey(path);
  } catch (err) {
    if (err instanceof BlobKeyError) return false;
    throw err;
  }
  return path.startsWith(PAYLOAD_AREA) && path.length > PAYLOAD_AREA.length;
}

/** Refuses (400, naming the field) a path outside the payload area. */
export function requirePayloadPath(path: string, field: string): string {
  if (!isPayloadPath(path)) {
    throw fail('PAYLOAD_PATH_INVALID', { field, area: PAYLOAD_AREA }, [
      { path: field, message: 'not a payload path', invalidValue: path.slice(0, 200) },
    ]);
  }
  return path;
}
