import type { JsonObject, StartWorkflowRequest, TaskRecord, TaskResult } from '@baton/protocol';

import { type BlobStore, BlobTooLarge } from '../blobs/blob-store.js';
import type { Clock } from '../clock.js';
import { BatonError, fail } from '../errors.js';
import {
  type PayloadOperation,
  type PayloadType,
  newPayloadPath,
  requirePayloadPath,
  taskInputPath,
} from './payload-paths.js';
import type { PayloadUrlSigner } from './signed-url.js';
import { copyWith } from '../copy-with.js';
import { jsonShapeProblem } from '../bounds/json-shape.js';
import { MAX_JSON_DEPTH } from '../bounds/ranges.js';

export interface PayloadSettings {
  /** Largest inline payload (a result's output, a start input, a handed-out task input), in bytes. */
  inlineMaxBytes: number;
  /**
   * Largest payload taken through blob storage (`BATON_PAYLOAD_MAX_BYTES`): an uploaded result
   * output or start input over it is refused before it is read whole.
   */
  maxBytes: number;
  urlTtlSeconds: number;
  /** Base URL workers reach Baton at; undefined = the base of the asking request. */
  publicUrl: string | undefined;
}

/** Conductor's `ExternalStorageLocation`. */
export interface ExternalStorageLocation {
  uri: string;
  path: string;
}

/** The route Baton serves signed payload URLs on (filesystem store). */
export const SIGNED_PAYLOAD_ROUTE = '/api/payloads/';

export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

export function externalStorageAdvice(kind: 'output' | 'input'): string {
  return kind === 'output'
    ? 'Upload a large output instead: GET /api/tasks/external-storage-location?operation=WRITE&payloadType=TASK_OUTPUT, PUT the JSON to the answered uri, then post the result with externalOutputPayloadStoragePath set to the answered path and no outputData'
    : 'Upload a large input instead: GET /api/tasks/external-storage-location?operation=WRITE&payloadType=WORKFLOW_INPUT, PUT the JSON to the answered uri, then start the run with externalInputPayloadStoragePath set to the answered path and no input';
}

/**
 * External payloads in Conductor's model (docs/design/payloads-and-archive.md#external-payloads):
 * signed upload and download URLs, results and start inputs read from blob storage as if they had
 * been sent inline, the inline limit, and task inputs over it handed out by path.
 */
export class PayloadService {
  constructor(
    private readonly blobs: BlobStore,
    private readonly signer: PayloadUrlSigner,
    private readonly settings: PayloadSettings,
    private readonly clock: Clock,
  ) {}

  get inlineMaxBytes(): number {
    return this.settings.inlineMaxBytes;
  }

  /**
   * `GET /api/tasks/external-storage-location`: a short-lived URL to upload (WRITE) or download
   * (READ) a payload. WRITE without a path makes a fresh one; READ needs one. A path outside the
   * payload area is refused.
   */
  async location(
    operation: PayloadOperation,
    payloadType: PayloadType,
    requestedPath: string | undefined,
    requestBase: string,
  ): Promise<ExternalStorageLocation> {
    let blobPath: string;
    if (requestedPath === undefined || requestedPath === '') {
      if (operation === 'READ') {
        throw fail('PAYLOAD_PATH_REQUIRED', {}, [
          { path: 'querystring.path', message: 'required for operation READ' },
        ]);
      }
      blobPath = newPayloadPath(payloadType);
    } else blobPath = requirePayloadPath(requestedPath, 'querystring.path');
    const ttl = this.settings.urlTtlSeconds;
    const presigned = await unavailableIfFails(() => this.blobs.presign(blobPath, operation, ttl));
    if (presigned !== undefined) return { uri: presigned, path: blobPath };
    const expires = Math.floor(this.clock.now() / 1000) + ttl;
    const signature = this.signer.sign(operation, blobPath, expires);
    const base = this.settings.publicUrl ?? requestBase;
    const query = `op=${operation}&expires=${expires}&signature=${encodeURIComponent(signature)}`;
    return { uri: `${base}${SIGNED_PAYLOAD_ROUTE}${blobPath}?${query}`, path: blobPath };
  }

  /** Checks a Baton-served URL's signature: 403 when it is tampered with or expired. */
  checkSigned(operation: PayloadOperation, blobPath: string, expires: number, signature: string): void {
    const outcome = this.signer.check(operation, blobPath, expires, signature, this.clock.now());
    if (outcome === 'expired') throw fail('PAYLOAD_URL_EXPIRED');
    if (outcome === 'invalid') throw fail('PAYLOAD_URL_INVALID');
  }

  /**
   * Reads a payload as a JSON object; a missing or malformed one is the caller's fault (400), one
   * over `BATON_PAYLOAD_MAX_BYTES` too (413): what is read becomes part of a record.
   */
  async readJson(blobPath: string, field: string): Promise<JsonObject> {
    requirePayloadPath(blobPath, field);
    const limit = this.settings.maxBytes;
    const bytes = await unavailableIfFails(() => this.blobs.get(blobPath, { maxBytes: limit }), field);
    if (bytes === undefined) {
      throw fail('PAYLOAD_NOT_UPLOADED', { path: blobPath }, [
        { path: field, message: 'no such payload', invalidValue: blobPath },
      ]);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(bytes.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw fail('PAYLOAD_NOT_OBJECT', { path: blobPath }, [
        { path: field, message: 'not a JSON object', invalidValue: blobPath },
      ]);
    }
    // Held to the shape of every JSON body: what is read becomes a record, walked by expressions
    // and serialized on every later decision (a payload a hundred thousand levels deep would
    // overflow the stack of each), and stored as text a database must take.
    const problem = jsonShapeProblem(parsed, 'payload');
    if (problem) {
      const path = `${problem.path} (the payload at ${blobPath})`;
      throw fail('BODY_TOO_DEEP', { path, problem: problem.message, maxDepth: MAX_JSON_DEPTH }, [
        { path: field, message: `${problem.path} ${problem.message}`, invalidValue: blobPath },
      ]);
    }
    return parsed as JsonObject;
  }

  async putBytes(blobPath: string, body: Uint8Array): Promise<void> {
    requirePayloadPath(blobPath, 'path');
    await unavailableIfFails(() => this.blobs.put(blobPath, body, 'application/json'));
  }

  async getBytes(blobPath: string): Promise<Buffer | undefined> {
    requirePayloadPath(blobPath, 'path');
    return unavailableIfFails(() => this.blobs.get(blobPath));
  }

  /**
   * A worker result as the engine takes it: an uploaded output read into `outputData` (the path
   * is kept on the task record), an inline output over the limit refused with 413 and advice.
   */
  async inlineResult(result: TaskResult): Promise<TaskResult> {
    const external = result.externalOutputPayloadStoragePath;
    if (external !== undefined) {
      const outputData = await this.readJson(external, 'body.externalOutputPayloadStoragePath');
      return copyWith(result, { outputData });
    }
    if (result.outputData !== undefined && jsonBytes(result.outputData) > this.settings.inlineMaxBytes) {
      throw fail('PAYLOAD_OVER_INLINE_LIMIT', {
        what: 'Task output',
        bytes: jsonBytes(result.outputData),
        limit: this.settings.inlineMaxBytes,
        advice: externalStorageAdvice('output'),
      });
    }
    return result;
  }

  /** A start request with an uploaded input read in; an inline input over the limit gets 413. */
  async inlineStart<T extends Omit<StartWorkflowRequest, 'name'>>(request: T): Promise<T> {
    const external = request.externalInputPayloadStoragePath;
    if (external !== undefined) {
      const input = await this.readJson(external, 'body.externalInputPayloadStoragePath');
      const { externalInputPayloadStoragePath: _path, ...rest } = request;
      return copyWith(rest, { input }) as T;
    }
    if (request.input !== undefined && jsonBytes(request.input) > this.settings.inlineMaxBytes) {
      throw fail('PAYLOAD_OVER_INLINE_LIMIT', {
        what: 'Workflow input',
        bytes: jsonBytes(request.input),
        limit: this.settings.inlineMaxBytes,
        advice: externalStorageAdvice('input'),
      });
    }
    return request;
  }

  /**
   * Tasks as handed to a worker: an input over the limit is written to blob storage and sent
   * as `externalInputPayloadStoragePath` with an empty `inputData`, as Conductor does, unless
   * the worker asked for inline payloads.
   */
  async forWorker(tasks: readonly TaskRecord[], inline: boolean): Promise<TaskRecord[]> {
    if (inline) return [...tasks];
    return Promise.all(
      tasks.map(async (task) => {
        const size = jsonBytes(task.inputData);
        if (size <= this.settings.inlineMaxBytes) return task;
        const blobPath = taskInputPath(task.taskId);
        try {
          await this.blobs.put(blobPath, Buffer.from(JSON.stringify(task.inputData)), 'application/json');
        } catch {
          // The task is already handed out: with blob storage down, the worker gets it inline
          // rather than not at all (its lock would lapse and the attempt be lost).
          return task;
        }
        return copyWith(task, { inputData: {}, externalInputPayloadStoragePath: blobPath });
      }),
    );
  }
}

function sizeOf(err: BlobTooLarge): string {
  return err.bytes === undefined ? `more than ${err.limit} bytes` : `${err.bytes} bytes`;
}

/**
 * Blob storage failing is not the caller's fault: 503, retryable, with the reason. A blob over the
 * reader's limit is (413, naming `field`).
 */
async function unavailableIfFails<T>(call: () => Promise<T>, field = 'path'): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof BatonError) throw err;
    if (err instanceof BlobTooLarge)
      throw fail('PAYLOAD_OVER_MAX', { path: err.key, size: sizeOf(err), limit: err.limit }, [
        { path: field, message: `the payload is ${sizeOf(err)}`, invalidValue: err.key },
      ]);
    const reason = err instanceof Error ? err.message || err.name : String(err);
    throw fail('BLOB_STORAGE_UNAVAILABLE', { reason });
  }
}
