import type {
  EventHandler,
  JsonObject,
  PollData,
  QueueCounts,
  RerunRequest,
  SearchResult,
  StoredTaskDef,
  TaskDef,
  TaskRecord,
  TaskResult,
  TestRunRequest,
  Workflow,
  WorkflowDef,
  WorkflowSchedule,
  WorkflowStatus,
  WorkflowSummary,
} from '@baton/protocol';
import createFetchClient, { type Client, type Middleware } from 'openapi-fetch';

import { tokenSource, type Credentials, type TokenSource } from './auth.js';
import { BatonApiError, BatonConnectionError, BatonNotApiError } from './errors.js';
import type { paths } from './generated/openapi.js';

export interface BatonClientOptions {
  /** Base URL of the server, e.g. http://127.0.0.1:8080 (a trailing /api, as Conductor clients take it, is dropped). */
  baseUrl: string;
  /** Bearer token or application key, when the server has authentication on. */
  credentials?: Credentials;
  /** Replaces the global fetch (tests, proxies). */
  fetch?: typeof fetch;
  /** The clock a token's expiry is judged by (epoch ms); default Date.now. */
  now?: () => number;
}

/** What openapi-fetch answers for every request. */
interface Answer {
  data?: unknown;
  error?: unknown;
  response: Response;
}

export interface RunSearch {
  name?: string;
  status?: WorkflowStatus | WorkflowStatus[];
  correlationId?: string;
  /** Epoch ms or ISO-8601. */
  from?: number | string;
  to?: number | string;
  freeText?: string;
  start?: number;
  size?: number;
  sort?: string;
}

export interface StartOptions {
  version?: number;
  input?: JsonObject;
  correlationId?: string;
  priority?: number;
  taskToDomain?: Record<string, string>;
  idempotencyKey?: string;
  idempotencyStrategy?: 'FAIL' | 'RETURN_EXISTING';
}

export interface PollRequest {
  count: number;
  /** Long-poll wait in ms, at most 5000. */
  timeout: number;
  workerId?: string;
  domain?: string;
  signal?: AbortSignal;
}

/**
 * A typed client for the whole Baton API. `api` is the generated, path-typed client (every route
 * of /api/openapi.json, with its parameters and body); the methods below wrap the routes the CLI
 * and the worker runner use and give their answers the protocol's record types. Every failure is
 * a BatonApiError (the server's status and message) or a BatonConnectionError (names the URL).
 */
export class BatonClient {
  readonly baseUrl: string;
  readonly api: Client<paths>;
  private readonly tokens: TokenSource;

  constructor(options: BatonClientOptions) {
    // Conductor's clients take the API root (`http://host:8080/api`); every path here starts
    // with /api already, so a trailing /api is dropped rather than doubled.
    this.baseUrl = options.baseUrl.replace(/\/+$/, '').replace(/\/api$/, '');
    const fetchImpl = options.fetch ?? globalThis.fetch;
    this.tokens = tokenSource(this.baseUrl, options.credentials, fetchImpl, options.now);
    const auth: Middleware = {
      onRequest: async ({ request }) => {
        const header = await this.tokens.header();
        if (header !== undefined) request.headers.set('authorization', header);
        return request;
      },
    };
    // Baton answers its API in JSON or plain text; a web page means the address leads elsewhere
    // (the web UI's pages under a path, another program): say so instead of a JSON parse error.
    const notApi: Middleware = {
      onResponse: ({ request, response }) => {
        const type = response.headers.get('content-type') ?? '';
        if (/^text\/html\b/i.test(type)) throw new BatonNotApiError(request.url, type.split(';')[0] ?? type);
        return response;
      },
    };
    this.api = createFetchClient<paths>({ baseUrl: this.baseUrl, fetch: fetchImpl });
    this.api.use(auth, notApi);
  }

  /**
   * Sends one request through the typed client and answers its body. A 401 with an application
   * key gets one fresh token and one more try; anything else non-2xx throws.
   */
  async send<T>(method: string, path: string, request: () => Promise<Answer>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      let answer: Answer;
      try {
        answer = await request();
      } catch (err) {
        // fetch reports a network failure (refused, reset, DNS) as a TypeError; anything else
        // (an abort, an answer that is not the JSON it claims) is not about reaching the server.
        if (err instanceof TypeError) throw new BatonConnectionError(this.baseUrl, err);
        throw err;
      }
      const { response } = answer;
      if (response.ok) return answer.data as T;
      if (response.status === 401 && attempt === 1 && this.tokens.invalidate()) continue;
      // The URL asked (path parameters filled in, query included) where fetch tells it; the
      // path template otherwise.
      const url = response.url !== '' ? response.url : `${this.baseUrl}${path}`;
      throw BatonApiError.from(method, url, response.status, answer.error);
    }
  }

  // ---- task definitions -------------------------------------------------------------------

  listTaskDefs(): Promise<StoredTaskDef[]> {
    return this.send('GET', '/api/metadata/taskdefs', () => this.api.GET('/api/metadata/taskdefs'));
  }

  /** The stored definition, or undefined when none has that name. */
  async getTaskDef(name: string): Promise<StoredTaskDef | undefined> {
    return this.orUndefined(
      this.send('GET', `/api/metadata/taskdefs/${name}`, () =>
        this.api.GET('/api/metadata/taskdefs/{name}', { params: { path: { name } } }),
      ),
    );
  }

  registerTaskDefs(defs: TaskDef[]): Promise<unknown> {
    return this.send('POST', '/api/metadata/taskdefs', () =>
      this.api.POST('/api/metadata/taskdefs', { body: defs as never, parseAs: 'text' }),
    );
  }

  updateTaskDef(def: TaskDef): Promise<unknown> {
    return this.send('PUT', '/api/metadata/taskdefs', () =>
      this.api.PUT('/api/metadata/taskdefs', { body: def as never, parseAs: 'text' }),
    );
  }

  // ---- workflow definitions ---------------------------------------------------------------

  /** A definition (latest version when none is given), or undefined when there is none. */
  async getWorkflowDef(name: string, version?: number): Promise<WorkflowDef | undefined> {
    return this.orUndefined(
      this.send('GET', `/api/metadata/workflow/${name}`, () =>
        this.api.GET('/api/metadata/workflow/{name}', {
          params: { path: { name }, query: version === undefined ? {} : { version } },
        }),
      ),
    );
  }

  listWorkflowDefs(): Promise<WorkflowDef[]> {
    return this.send('GET', '/api/metadata/workflow', () => this.api.GET('/api/metadata/workflow'));
  }

  /** Registers or replaces each definition (all or nothing). */
  putWorkflowDefs(defs: WorkflowDef[]): Promise<unknown> {
    return this.send('PUT', '/api/metadata/workflow', () =>
      this.api.PUT('/api/metadata/workflow', { body: defs as never, parseAs: 'text' }),
    );
  }

  /** Runs the registration checks without storing; throws BatonApiError (400) naming the problems. */
  validateWorkflowDef(def: WorkflowDef): Promise<unknown> {
    return this.send('POST', '/api/metadata/workflow/validate', () =>
      this.api.POST('/api/metadata/workflow/validate', { body: def as never, parseAs: 'text' }),
    );
  }

  // ---- schedules and event handlers ------------------------------------------------------

  /** The schedule, or undefined when none has that name. */
  async getSchedule(name: string): Promise<WorkflowSchedule | undefined> {
    return this.orUndefined(
      this.send('GET', `/api/schedule/${name}`, () =>
        this.api.GET('/api/schedule/{name}', { params: { path: { name } } }),
      ),
    );
  }

  listSchedules(workflowName?: string): Promise<WorkflowSchedule[]> {
    return this.send('GET', '/api/schedule', () =>
      this.api.GET('/api/schedule', {
        params: { query: workflowName === undefined ? {} : { workflowName } },
      }),
    );
  }

  /** Creates or replaces a schedule (by name); answers it as stored. */
  saveSchedule(schedule: WorkflowSchedule): Promise<WorkflowSchedule> {
    return this.send('POST', '/api/schedule', () =>
      this.api.POST('/api/schedule', { body: schedule as never }),
    );
  }

  listEventHandlers(): Promise<EventHandler[]> {
    return this.send('GET', '/api/event', () => this.api.GET('/api/event'));
  }

  /** Adds a handler; a BatonApiError 409 when the name is taken. */
  addEventHandler(handler: EventHandler): Promise<unknown> {
    return this.send('POST', '/api/event', () =>
      this.api.POST('/api/event', { body: handler as never, parseAs: 'text' }),
    );
  }

  /** Replaces a handler; a BatonApiError 404 when there is none by that name. */
  updateEventHandler(handler: EventHandler): Promise<unknown> {
    return this.send('PUT', '/api/event', () =>
      this.api.PUT('/api/event', { body: handler as never, parseAs: 'text' }),
    );
  }

  // ---- runs -------------------------------------------------------------------------------

  /** Starts a run; answers its id. */
  startWorkflow(name: string, options: StartOptions = {}): Promise<string> {
    return this.send('POST', `/api/workflow/${name}`, () =>
      this.api.POST('/api/workflow/{name}', {
        params: { path: { name } },
        body: options as never,
        parseAs: 'text',
      }),
    );
  }

  getWorkflow(workflowId: string, includeTasks = true): Promise<Workflow> {
    return this.send('GET', `/api/workflow/${workflowId}`, () =>
      this.api.GET('/api/workflow/{workflowId}', {
        params: { path: { workflowId }, query: { includeTasks } },
      }),
    );
  }

  searchWorkflows(search: RunSearch = {}): Promise<SearchResult<WorkflowSummary>> {
    const { status, from, to, ...rest } = search;
    const query = {
      ...rest,
      ...(status !== undefined && { status: Array.isArray(status) ? status.join(',') : status }),
      ...(from !== undefined && { from: String(from) }),
      ...(to !== undefined && { to: String(to) }),
    };
    return this.send('GET', '/api/workflow/search', () =>
      this.api.GET('/api/workflow/search', { params: { query } }),
    );
  }

  pauseWorkflow(workflowId: string): Promise<unknown> {
    return this.runControl('PUT', '/pause', () =>
      this.api.PUT('/api/workflow/{workflowId}/pause', { params: { path: { workflowId } }, parseAs: 'text' }),
    );
  }

  resumeWorkflow(workflowId: string): Promise<unknown> {
    return this.runControl('PUT', '/resume', () =>
      this.api.PUT('/api/workflow/{workflowId}/resume', {
        params: { path: { workflowId } },
        parseAs: 'text',
      }),
    );
  }

  terminateWorkflow(workflowId: string, reason?: string): Promise<unknown> {
    return this.runControl('POST', '/terminate', () =>
      this.api.POST('/api/workflow/{workflowId}/terminate', {
        params: { path: { workflowId }, query: reason === undefined ? {} : { reason } },
        parseAs: 'text',
      }),
    );
  }

  /** A new run continuing from the failed task; answers its id. */
  retryWorkflow(workflowId: string): Promise<string> {
    return this.runControl('POST', '/retry', () =>
      this.api.POST('/api/workflow/{workflowId}/retry', {
        params: { path: { workflowId } },
        parseAs: 'text',
      }),
    );
  }

  /** A new run from the first task with the same input; answers its id. */
  restartWorkflow(workflowId: string, useLatestDefinitions = false): Promise<string> {
    return this.runControl('POST', '/restart', () =>
      this.api.POST('/api/workflow/{workflowId}/restart', {
        params: { path: { workflowId }, query: { useLatestDefinitions } },
        parseAs: 'text',
      }),
    );
  }

  /** A new run from the named task (the first task when none); answers its id. */
  rerunWorkflow(workflowId: string, body: RerunRequest = {}): Promise<string> {
    return this.runControl('POST', '/rerun', () =>
      this.api.POST('/api/workflow/{workflowId}/rerun', {
        params: { path: { workflowId } },
        body: body as never,
        parseAs: 'text',
      }),
    );
  }

  /** Runs a definition in memory with mocked task outputs (nothing is stored or called). */
  testWorkflow(request: TestRunRequest): Promise<Workflow> {
    return this.send('POST', '/api/workflow/test', () =>
      this.api.POST('/api/workflow/test', { body: request as never }),
    );
  }

  // ---- workers ----------------------------------------------------------------------------

  /** Takes up to `count` tasks, waiting up to `timeout` ms for work; [] when none. */
  pollBatch(taskType: string, request: PollRequest): Promise<TaskRecord[]> {
    return this.send('GET', `/api/tasks/poll/batch/${taskType}`, () =>
      this.api.GET('/api/tasks/poll/batch/{taskType}', {
        params: {
          path: { taskType },
          query: {
            count: request.count,
            timeout: request.timeout,
            ...(request.workerId !== undefined && { workerid: request.workerId }),
            ...(request.domain !== undefined && { domain: request.domain }),
          },
        },
        ...(request.signal && { signal: request.signal }),
      }),
    );
  }

  /**
   * Posts a worker's result. Asks for strict handling, so a result the server does not apply
   * (its attempt has ended, another worker holds the task) always answers 409 and is never
   * mistaken for a recorded one.
   */
  updateTask(result: TaskResult): Promise<unknown> {
    return this.send('POST', '/api/tasks', () =>
      this.api.POST('/api/tasks', {
        body: result as never,
        parseAs: 'text',
        headers: { prefer: 'handling=strict' },
      }),
    );
  }

  getTask(taskId: string): Promise<TaskRecord> {
    return this.send('GET', `/api/tasks/${taskId}`, () =>
      this.api.GET('/api/tasks/{taskId}', { params: { path: { taskId } } }),
    );
  }

  /** Counts per queue with worker liveness. */
  queueSizes(): Promise<Record<string, Omit<QueueCounts, 'queueName'>>> {
    return this.send('GET', '/api/tasks/queue/sizes', () => this.api.GET('/api/tasks/queue/sizes'));
  }

  pollData(taskType: string): Promise<PollData[]> {
    return this.send('GET', '/api/tasks/queue/polldata', () =>
      this.api.GET('/api/tasks/queue/polldata', { params: { query: { taskType } } }),
    );
  }

  private runControl<T>(method: string, suffix: string, request: () => Promise<Answer>): Promise<T> {
    return this.send(method, `/api/workflow/{id}${suffix}`, request);
  }

  private async orUndefined<T>(request: Promise<T>): Promise<T | undefined> {
    try {
      return await request;
    } catch (err) {
      if (err instanceof BatonApiError && err.status === 404) return undefined;
      throw err;
    }
  }
}
