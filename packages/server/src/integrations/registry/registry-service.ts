import type { JsonObject, ValidationError } from '@baton/protocol';

import type { Clock } from '../../clock.js';
import { fail } from '../../errors.js';
import type { Store, StoredService } from '../../store/store.js';
import {
  breakerSettings,
  checkBreakerConfig,
  CircuitBreakers,
  type CircuitState,
  effectiveState,
} from './circuit-breaker.js';
import { isLlmProviderRow } from '../llm/llm-providers.js';
import { isPromptRow } from '../prompts/prompt-service.js';
import { checkOpenApiDocument, methodsOf, OpenApiValidators } from '../connector/openapi-document.js';
import {
  answerOf,
  type CircuitBreakerState,
  checkServiceBody,
  kindOf,
  recordOf,
  type ServiceBody,
  type ServiceKind,
  type ServiceMethod,
  type ServiceRecord,
} from './service-record.js';

export interface CircuitBreakerStatus {
  service: string;
  previousState: CircuitState;
  currentState: CircuitState;
  transitionTimestamp: number;
  message: string;
}

/** A stored record, with the fields every reader relies on made present (rows written by hand or by older versions). */
function recordFrom(row: StoredService): ServiceRecord {
  const record = row.record as unknown as Partial<ServiceRecord>;
  return {
    ...record,
    name: row.name,
    kind: record.kind ?? 'mcp',
    url: typeof record.url === 'string' ? record.url : '',
    methods: Array.isArray(record.methods) ? record.methods : [],
    circuitBreakerEnabled: record.circuitBreakerEnabled === true,
    circuitBreaker: record.circuitBreaker ?? { state: 'CLOSED', transitionTimestamp: row.createTime },
  };
}

/**
 * The service registry (Orkes's `/api/registry/service`): named MCP action services, OpenAPI
 * connectors and document-analysis services, each with credentials that name secrets. Handlers
 * read it at call time, so a change applies to the next call on every node.
 */
export class RegistryService {
  /** Parsed connector documents, by service name and update time (a change makes a new entry). */
  private readonly validators = new Map<string, { updateTime: number; validators: OpenApiValidators }>();
  /** This node's automatic circuit breakers; their transitions are written to the records. */
  readonly breakers = new CircuitBreakers((name, from, to, now) =>
    this.transitionCircuit(name, from, to, now),
  );

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** Asks an MCP service for its tools (`discover`); absent: the registered methods are answered. */
    private readonly listTools?: (record: ServiceRecord) => Promise<ServiceMethod[]>,
  ) {}

  private async stored(name: string): Promise<StoredService> {
    const row = await this.store.read((tx) => tx.getService(name));
    if (!row) throw fail('SERVICE_NOT_FOUND', { name });
    return row;
  }

  /** Adds or replaces a service (Orkes: "add or update"). */
  async put(body: ServiceBody): Promise<JsonObject> {
    refuseNul(body);
    const problems: ValidationError[] = [...checkServiceBody(body), ...checkBreakerConfig(body.config)].map(
      (p) => ({
        path: p.path,
        message: p.message,
      }),
    );
    if (problems.length === 0 && kindOf(body) === 'connector' && body.openApi) {
      for (const message of await checkOpenApiDocument(body.openApi))
        problems.push({ path: 'body.openApi', message });
    }
    if (problems.length > 0) {
      const first = problems[0];
      throw fail(
        'SERVICE_INVALID',
        { name: body.name, path: first?.path, problem: first?.message },
        problems,
      );
    }
    const now = this.clock.now();
    return this.store.transaction(async (tx) => {
      const previous = await tx.getService(body.name);
      const record = recordOf(body, previous && recordFrom(previous), now);
      if (record.kind === 'connector' && record.openApi && body.methods === undefined) {
        record.methods = methodsOf(record.openApi);
      }
      const createTime = previous?.createTime ?? now;
      await tx.putService({
        name: record.name,
        record: record as unknown as JsonObject,
        createTime,
        updateTime: now,
      });
      return answerOf(record, { createTime, updateTime: now });
    });
  }

  async get(name: string): Promise<JsonObject> {
    const row = await this.stored(name);
    return answerOf(recordFrom(row), row);
  }

  async list(): Promise<JsonObject[]> {
    const rows = await this.store.read((tx) => tx.listServices());
    // LLM providers and prompts share the table under names no service can take; they are not services.
    return rows
      .filter((row) => !isLlmProviderRow(row.name) && !isPromptRow(row.name))
      .map((row) => answerOf(recordFrom(row), row));
  }

  async delete(name: string): Promise<void> {
    if (!(await this.store.transaction((tx) => tx.deleteService(name))))
      throw fail('SERVICE_NOT_FOUND', { name });
    this.validators.delete(name);
  }

  /** Changes a stored record in one transaction. */
  private async change(
    name: string,
    fn: (record: ServiceRecord, now: number) => void,
  ): Promise<ServiceRecord> {
    const now = this.clock.now();
    return this.store.transaction(async (tx) => {
      const row = await tx.getService(name);
      if (!row) throw fail('SERVICE_NOT_FOUND', { name });
      const record = recordFrom(row);
      fn(record, now);
      await tx.putService({ ...row, record: record as unknown as JsonObject, updateTime: now });
      return record;
    });
  }

  /** Adds or replaces a method (an MCP tool; a connector's methods come from its document). */
  async putMethod(name: string, method: ServiceMethod): Promise<JsonObject> {
    refuseNul(method);
    const record = await this.change(name, (r) => {
      if (r.kind === 'connector') {
        throw fail('SERVICE_IS_CONNECTOR', { name });
      }
      const at = r.methods.findIndex((m) => m.operationName === method.operationName);
      if (at >= 0) r.methods[at] = method;
      else r.methods.push(method);
    });
    const row = await this.stored(name);
    return answerOf(record, row);
  }

  async deleteMethod(name: string, methodName: string): Promise<void> {
    let found = false;
    await this.change(name, (r) => {
      const before = r.methods.length;
      r.methods = r.methods.filter((m) => m.operationName !== methodName && m.methodName !== methodName);
      found = r.methods.length < before;
    });
    if (!found) throw fail('SERVICE_METHOD_NOT_FOUND', { name, method: methodName });
  }

  /**
   * Orkes's discover: the methods the service offers: a connector's operations from its
   * document, an MCP service's tools asked of the service itself. With `create` the answer
   * replaces the stored methods (so registration checks know the tools).
   */
  async discover(name: string, create = false): Promise<ServiceMethod[]> {
    const record = recordFrom(await this.stored(name));
    let methods = record.methods;
    if (record.kind === 'connector' && record.openApi) methods = methodsOf(record.openApi);
    else if (record.kind === 'mcp' && this.listTools) {
      try {
        methods = await this.listTools(record);
      } catch (err) {
        throw fail('SERVICE_TOOLS_UNAVAILABLE', {
          name,
          reason: err instanceof Error ? err.message.slice(0, 500) : String(err),
        });
      }
    }
    if (create) {
      await this.change(name, (r) => {
        r.methods = methods;
      });
    }
    return methods;
  }

  async setCircuit(name: string, state: 'OPEN' | 'CLOSED'): Promise<CircuitBreakerStatus> {
    let previous: CircuitState = 'CLOSED';
    const record = await this.change(name, (r, now) => {
      previous = effectiveState(r.circuitBreaker, breakerSettings(r), now).state;
      r.circuitBreaker = {
        state,
        transitionTimestamp: now,
        message: state === 'OPEN' ? 'opened by an operator' : 'closed by an operator',
        previousState: previous,
        ...(state === 'OPEN' && { openedBy: 'operator' as const }),
      };
    });
    return statusOf(record, previous, this.clock.now());
  }

  async circuitStatus(name: string): Promise<CircuitBreakerStatus> {
    const record = recordFrom(await this.stored(name));
    const now = this.clock.now();
    const current = effectiveState(record.circuitBreaker, breakerSettings(record), now);
    // Half-open is the open circuit's next state (it is never written: the time says it).
    const previous: CircuitState =
      current.state === 'HALF_OPEN' ? 'OPEN' : (record.circuitBreaker.previousState ?? current.state);
    return statusOf(record, previous, now);
  }

  /** The breaker's transition, written only if the circuit is still as the node saw it. */
  private async transitionCircuit(
    name: string,
    from: CircuitBreakerState,
    to: { state: 'OPEN' | 'CLOSED'; message: string },
    now: number,
  ): Promise<void> {
    await this.store.transaction(async (tx) => {
      const row = await tx.getService(name);
      if (!row) return;
      const record = recordFrom(row);
      const current = record.circuitBreaker;
      if (current.state !== from.state || current.transitionTimestamp !== from.transitionTimestamp) return;
      record.circuitBreaker = {
        state: to.state,
        transitionTimestamp: now,
        message: to.message,
        previousState: effectiveState(current, breakerSettings(record), now).state,
        ...(to.state === 'OPEN' && { openedBy: 'breaker' as const }),
      };
      await tx.putService({ ...row, record: record as unknown as JsonObject, updateTime: now });
    });
  }

  // --- for handlers and registration checks

  /** The record of a service, or undefined. */
  async find(name: string): Promise<ServiceRecord | undefined> {
    const row = await this.store.read((tx) => tx.getService(name));
    return row && recordFrom(row);
  }

  /** The validators of a connector's document (parsed once per version of the record). */
  async connector(
    name: string,
  ): Promise<{ record: ServiceRecord; validators: OpenApiValidators } | undefined> {
    const row = await this.store.read((tx) => tx.getService(name));
    if (!row) return undefined;
    const record = recordFrom(row);
    if (record.kind !== 'connector' || !record.openApi)
      return { record, validators: new OpenApiValidators({}) };
    const cached = this.validators.get(name);
    if (cached?.updateTime === row.updateTime) return { record, validators: cached.validators };
    const validators = new OpenApiValidators(record.openApi);
    this.validators.set(name, { updateTime: row.updateTime, validators });
    return { record, validators };
  }
}

/** NUL cannot be stored in PostgreSQL text or JSON: refuse it up front (SQLite would take it). */
function refuseNul(body: unknown): void {
  if (JSON.stringify(body).includes('\\u0000')) {
    throw fail('SERVICE_TEXT_HAS_NUL', {}, [
      { path: 'body', message: 'text may not contain NUL (\\u0000) characters' },
    ]);
  }
}

function statusOf(record: ServiceRecord, previous: CircuitState, now: number): CircuitBreakerStatus {
  const current = effectiveState(record.circuitBreaker, breakerSettings(record), now);
  return {
    service: record.name,
    previousState: previous,
    currentState: current.state,
    transitionTimestamp: current.since,
    message:
      current.state === 'HALF_OPEN'
        ? `half-open: trial calls let through after ${record.circuitBreaker.message ?? 'the breaker opened it'}`
        : (record.circuitBreaker.message ?? ''),
  };
}

/** Whether a record may be used by a task of this kind of service. */
export function expectKind(
  record: ServiceRecord | undefined,
  name: string,
  kind: ServiceKind,
): ServiceRecord {
  if (!record) throw new Error(`service '${name}' is not registered (POST /api/registry/service)`);
  if (record.kind !== kind) throw new Error(`service '${name}' is a ${record.kind} service, not ${kind}`);
  return record;
}
