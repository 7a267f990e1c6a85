import type { JsonObject, JsonValue, ValidationError, WorkflowTask } from '@baton/protocol';

import { type BlobStore, BlobTooLarge } from '../../blobs/blob-store.js';
import { PAYLOAD_AREA, isPayloadPath } from '../../payloads/payload-paths.js';
import type { CallContext, CallFetch, CallHandler, CallOutcome, SystemCall } from '../call-handler.js';
import { CallInputError, failureOf } from '../call-failure.js';
import { readAnswer } from '../http-answer.js';
import { type RegistryService, expectKind } from '../registry/registry-service.js';
import { serviceHeaders } from '../registry/service-auth.js';
import type { ServiceRecord } from '../registry/service-record.js';
import { CallSecrets } from '../secrets/call-secrets.js';

/**
 * DOCUMENT_INTELLIGENCE: the Azure AI Document Intelligence REST protocol against a registered
 * service. The first call starts the analysis (`POST …/documentModels/{modelId}:analyze` → 202
 * and `Operation-Location`); each later call is one short `GET` of that location. While the
 * analysis runs the handler answers IN_PROGRESS with the server's `Retry-After`, so between
 * checks the task waits on a durable timer, holding no lease and no thread.
 *
 * The document is `urlSource` (the service fetches it), `base64Source`, or `blobPath`: a path in
 * the payload area of the server's blob storage (as `GET /api/tasks/external-storage-location`
 * answers it), which the handler reads and sends as `base64Source` in the same JSON body. The
 * protocol also takes raw bytes with their content type, but blob storage does not keep a
 * reliable content type (the filesystem store keeps none), and the JSON form is the one request
 * shape every source and API version shares.
 */

/** Where `blobPath` documents are read from: the server's blob storage (the port, not a store class). */
export interface DocumentBlobs {
  readonly blobs: Pick<BlobStore, 'get'>;
  /** Largest document read from blob storage (`BATON_PAYLOAD_MAX_BYTES`). */
  readonly maxBytes: number;
}

export const DEFAULT_API_VERSION = '2024-11-30';
/** Bounds of the wait between checks when the service's Retry-After is missing or odd. */
const MIN_CHECK_SECONDS = 1;
const DEFAULT_CHECK_SECONDS = 5;
const MAX_CHECK_SECONDS = 300;
const SOURCES = ['urlSource', 'base64Source', 'blobPath'] as const;
const blobPathRule = `blobPath must be a path inside the payload area (${PAYLOAD_AREA}…) as answered by GET /api/tasks/external-storage-location`;
/** Longest an analysis may run before the task gives up on it. */
const MAX_ANALYSIS_MS = 24 * 60 * 60 * 1000;

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Seconds from a Retry-After header (seconds or an HTTP date), kept within bounds. */
export function retryAfterSeconds(header: string | undefined, now: number): number {
  if (header === undefined || header.trim() === '') return DEFAULT_CHECK_SECONDS;
  const seconds = /^\d+$/.test(header.trim()) ? Number(header.trim()) : (Date.parse(header) - now) / 1000;
  if (!Number.isFinite(seconds)) return DEFAULT_CHECK_SECONDS;
  return Math.min(MAX_CHECK_SECONDS, Math.max(MIN_CHECK_SECONDS, Math.ceil(seconds)));
}

export class DocumentAnalysisHandler implements CallHandler {
  readonly taskTypes = ['DOCUMENT_INTELLIGENCE'] as const;

  constructor(
    private readonly registry: RegistryService,
    /** Without it a `blobPath` source fails the task (this server has no blob storage to read). */
    private readonly documents?: DocumentBlobs,
  ) {}

  check(node: WorkflowTask, path: string): ValidationError[] {
    const errors: ValidationError[] = [];
    const input = node.inputParameters ?? {};
    const at = (field: string): string => `${path}.inputParameters.${field}`;
    if (typeof input.service !== 'string' || input.service === '') {
      errors.push({
        path: at('service'),
        message: 'DOCUMENT_INTELLIGENCE needs service: a registered document-intelligence service',
        invalidValue: input.service ?? null,
      });
    }
    if (typeof input.modelId !== 'string' || input.modelId === '') {
      errors.push({
        path: at('modelId'),
        message: 'DOCUMENT_INTELLIGENCE needs modelId (e.g. prebuilt-layout)',
        invalidValue: input.modelId ?? null,
      });
    }
    const given = SOURCES.filter((s) => input[s] !== undefined && input[s] !== null);
    if (given.length !== 1) {
      errors.push({
        path: at('urlSource'),
        message: 'DOCUMENT_INTELLIGENCE needs exactly one of urlSource, base64Source or blobPath',
        invalidValue: given.join(', ') || null,
      });
    }
    const blobPath = input.blobPath;
    if (blobPath !== undefined && blobPath !== null) {
      // An expression is checked when the call is made; a literal path is checked now.
      const expression = typeof blobPath === 'string' && blobPath.includes('${');
      if (!expression && (typeof blobPath !== 'string' || !isPayloadPath(blobPath))) {
        errors.push({
          path: at('blobPath'),
          message: blobPathRule,
          invalidValue: typeof blobPath === 'string' ? blobPath.slice(0, 200) : JSON.stringify(blobPath),
        });
      }
    }
    return errors;
  }

  async call(call: SystemCall, ctx: CallContext): Promise<CallOutcome> {
    const secrets = new CallSecrets(ctx);
    try {
      const name = call.input.service;
      if (typeof name !== 'string') throw new CallInputError('service is required');
      const record = expectKind(await this.registry.find(name), name, 'document-intelligence');
      // Each request (the start, every check) counts for the service's circuit breaker.
      const permit = this.registry.breakers.admit(record, () => ctx.now());
      try {
        const fetch = permit.watch(ctx.fetch, ctx.signal);
        const headers = await serviceHeaders(record, secrets);
        const location = call.previousOutput.operationLocation;
        const outcome =
          typeof location === 'string'
            ? await this.poll(call, ctx, fetch, record, headers, location)
            : await this.start(call, ctx, fetch, record, headers, secrets);
        return secrets.outcome(outcome);
      } finally {
        await permit.end(undefined);
      }
    } catch (err) {
      return secrets.outcome(failureOf(err, 'Document analysis failed'));
    }
  }

  private waiting(ctx: CallContext, output: JsonObject, seconds: number, checks: number): CallOutcome {
    const nextCheckAt = new Date(ctx.now() + seconds * 1000).toISOString();
    return {
      status: 'IN_PROGRESS',
      checkAfterSeconds: seconds,
      output: { ...output, checks, nextCheckAt },
      waitingFor: `document analysis running, next check at ${nextCheckAt}`,
    };
  }

  private async start(
    call: SystemCall,
    ctx: CallContext,
    fetch: CallFetch,
    record: ServiceRecord,
    headers: Record<string, string>,
    secrets: CallSecrets,
  ): Promise<CallOutcome> {
    const input = call.input;
    const modelId = input.modelId;
    if (typeof modelId !== 'string' || modelId === '') throw new CallInputError('modelId is required');
    let source: JsonObject;
    if (typeof input.urlSource === 'string') source = await secrets.resolve({ urlSource: input.urlSource });
    else if (typeof input.base64Source === 'string')
      source = await secrets.resolve({ base64Source: input.base64Source });
    else if (input.blobPath !== undefined && input.blobPath !== null)
      source = { base64Source: (await this.readBlob(input.blobPath, ctx)).toString('base64') };
    else throw new CallInputError('one of urlSource, base64Source or blobPath (a string) is required');
    const apiVersion =
      typeof input.apiVersion === 'string' ? input.apiVersion : (record.apiVersion ?? DEFAULT_API_VERSION);
    const url = new URL(
      `${record.url.replace(/\/+$/, '')}/documentintelligence/documentModels/${encodeURIComponent(modelId)}:analyze`,
    );
    url.searchParams.set('api-version', apiVersion);
    for (const field of ['pages', 'locale', 'stringIndexType', 'outputContentFormat'] as const) {
      const value = input[field];
      if (typeof value === 'string' && value !== '') url.searchParams.set(field, value);
    }
    if (Array.isArray(input.features) && input.features.length > 0)
      url.searchParams.set('features', input.features.map(String).join(','));
    ctx.log(`POST ${url.origin}${url.pathname} (model ${modelId}, attempt ${call.attempt})`);
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(source),
      signal: ctx.signal,
      redirect: 'manual',
    });
    const answer = await readAnswer(res, 1024 * 1024);
    if (answer.statusCode !== 202) {
      return {
        status: 'FAILED',
        reason: `Document analysis failed: analyze answered ${answer.statusCode} ${answer.reasonPhrase}: ${errorText(answer.body)}`,
      };
    }
    const location = answer.headers['operation-location'];
    if (location === undefined)
      return {
        status: 'FAILED',
        reason: 'Document analysis failed: analyze answered 202 without an Operation-Location header',
      };
    let target: URL;
    try {
      target = new URL(location, url);
    } catch {
      return {
        status: 'FAILED',
        reason: 'Document analysis failed: the Operation-Location header is not a URL',
      };
    }
    // The service's credentials go with every check: only to the service's own origin.
    if (target.origin !== url.origin) {
      return {
        status: 'FAILED',
        reason: `Document analysis failed: Operation-Location points to ${target.origin}, not to the service's ${url.origin}`,
      };
    }
    const seconds = retryAfterSeconds(answer.headers['retry-after'], ctx.now());
    return this.waiting(
      ctx,
      { operationLocation: target.toString(), modelId, startedAt: new Date(ctx.now()).toISOString() },
      seconds,
      0,
    );
  }

  /**
   * The document at a `blobPath`: only inside the payload area, as the external-payload routes
   * allow. A missing, empty or too large document ends the task (no attempt can do better);
   * storage that does not answer fails it for a retry.
   */
  private async readBlob(blobPath: JsonValue, ctx: CallContext): Promise<Buffer> {
    if (typeof blobPath !== 'string' || !isPayloadPath(blobPath)) {
      const shown = typeof blobPath === 'string' ? `'${blobPath.slice(0, 200)}'` : JSON.stringify(blobPath);
      throw new CallInputError(`blobPath ${shown} refused: ${blobPathRule}`);
    }
    if (!this.documents)
      throw new CallInputError(`blobPath ${blobPath}: this server has no blob storage to read it from`);
    let bytes: Buffer | undefined;
    const limit = this.documents.maxBytes;
    try {
      // Sized before it is read: a document far over the limit never comes into memory.
      bytes = await this.documents.blobs.get(blobPath, { maxBytes: limit });
    } catch (err) {
      if (err instanceof BlobTooLarge) {
        const size = err.bytes === undefined ? `more than ${limit}` : String(err.bytes);
        throw new CallInputError(
          `the document at blob path ${blobPath} is ${size} bytes, over BATON_PAYLOAD_MAX_BYTES (${limit})`,
        );
      }
      const reason = err instanceof Error ? err.message || err.name : String(err);
      throw new CallInputError(`blob storage does not answer reading ${blobPath}: ${reason}`, false);
    }
    if (bytes === undefined)
      throw new CallInputError(`no document at blob path ${blobPath} (upload it first)`);
    if (bytes.length === 0) throw new CallInputError(`the document at blob path ${blobPath} is empty`);
    ctx.log(`read ${bytes.length} bytes from blob path ${blobPath}`);
    return bytes;
  }

  private async poll(
    call: SystemCall,
    ctx: CallContext,
    fetch: CallFetch,
    record: ServiceRecord,
    headers: Record<string, string>,
    location: string,
  ): Promise<CallOutcome> {
    const target = new URL(location);
    if (target.origin !== new URL(record.url).origin) {
      throw new CallInputError(`the operation location is not on service ${record.name}'s origin`);
    }
    const res = await fetch(target, {
      method: 'GET',
      headers: { ...headers, accept: 'application/json' },
      signal: ctx.signal,
      redirect: 'manual',
    });
    const answer = await readAnswer(res);
    const previous = call.previousOutput;
    const checks = (typeof previous.checks === 'number' ? previous.checks : 0) + 1;
    const startedAt = typeof previous.startedAt === 'string' ? Date.parse(previous.startedAt) : NaN;
    if (Number.isFinite(startedAt) && ctx.now() - startedAt > MAX_ANALYSIS_MS) {
      // A service that never finishes must not keep the task open for ever (a task timeout may end it sooner).
      return {
        status: 'FAILED',
        reason: `Document analysis failed: still not done ${Math.round(MAX_ANALYSIS_MS / 3_600_000)} h after it started (${checks} checks)`,
        output: { status: 'timedOut', operationLocation: location, checks },
      };
    }
    if (answer.statusCode !== 200 || !isObject(answer.body)) {
      if (answer.statusCode === 429 || answer.statusCode >= 500) {
        // The service is busy or failing for a moment: keep the operation and check again later.
        return this.waiting(
          ctx,
          stripTimes(previous),
          retryAfterSeconds(answer.headers['retry-after'], ctx.now()),
          checks,
        );
      }
      return {
        status: 'FAILED',
        reason: `Document analysis failed: checking the operation answered ${answer.statusCode} ${answer.reasonPhrase}: ${errorText(answer.body)}`,
      };
    }
    const body = answer.body;
    const status = typeof body.status === 'string' ? body.status : 'unknown';
    switch (status) {
      case 'succeeded':
        return {
          status: 'COMPLETED',
          output: {
            status: 'succeeded',
            analyzeResult: body.analyzeResult ?? null,
            modelId: previous.modelId ?? null,
            createdDateTime: body.createdDateTime ?? null,
            lastUpdatedDateTime: body.lastUpdatedDateTime ?? null,
            checks,
          },
        };
      case 'failed':
      case 'canceled':
        return {
          status: 'FAILED',
          reason: `Document analysis ${status}: ${errorText(body.error ?? null)}`,
          output: { status, error: body.error ?? null, checks },
        };
      default:
        return this.waiting(
          ctx,
          stripTimes(previous),
          retryAfterSeconds(answer.headers['retry-after'], ctx.now()),
          checks,
        );
    }
  }
}

function stripTimes(previous: JsonObject): JsonObject {
  const { nextCheckAt: _n, checks: _c, ...rest } = previous;
  return rest;
}

function errorText(body: JsonValue): string {
  if (isObject(body) && isObject(body.error)) return errorText(body.error);
  if (isObject(body) && typeof body.message === 'string') {
    return `${typeof body.code === 'string' ? `${body.code}: ` : ''}${body.message}`;
  }
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return text.length > 1000 ? `${text.slice(0, 1000)}…` : text;
}
