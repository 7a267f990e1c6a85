import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';

import type { JsonObject } from '@baton/protocol';
import { Agent, fetch as undiciFetch } from 'undici';

import { ManualClock } from '../../src/clock.js';
import type { CallContext, CallOutcome, SystemCall } from '../../src/integrations/call-handler.js';
import { ConnectorHandler } from '../../src/integrations/connector/connector-handler.js';
import { DocumentAnalysisHandler } from '../../src/integrations/document-intelligence/document-analysis-handler.js';
import { McpSessions } from '../../src/integrations/mcp/mcp-sessions.js';
import { McpToolHandler } from '../../src/integrations/mcp/mcp-tool-handler.js';
import { CircuitBreakers, type CircuitTransition } from '../../src/integrations/registry/circuit-breaker.js';
import { RegistryService } from '../../src/integrations/registry/registry-service.js';
import type { ServiceRecord } from '../../src/integrations/registry/service-record.js';
import { json, startHttpTarget, type HttpTarget } from '../helpers/http-target.js';
import { type OpenedStore, storeCases } from '../helpers/stores.js';

/**
 * The automatic circuit breaker (Orkes's `circuitBreakerEnabled` and `circuitBreakerConfig`),
 * on an injected clock: it opens after the configured failure rate over the window, fails
 * calls at once while open, half-opens after the configured wait, and closes or opens again
 * on its trial calls. Two registry instances on one store stand for two nodes.
 */

const PING_API: JsonObject = {
  openapi: '3.0.3',
  info: { title: 'Ping', version: '1' },
  paths: { '/ping': { get: { operationId: 'ping', responses: { '200': { description: 'pong' } } } } },
};

const BREAKER = {
  failureRateThreshold: 50,
  slidingWindowSize: 4,
  minimumNumberOfCalls: 4,
  waitDurationInOpenState: 30,
  permittedNumberOfCallsInHalfOpenState: 2,
};

const agent = new Agent();
let seq = 0;
function ping(): SystemCall {
  seq++;
  return {
    taskId: `task-${seq}`,
    workflowId: 'wf',
    taskType: 'CONNECTOR',
    declaredType: 'CONNECTOR',
    referenceTaskName: `ping${seq}`,
    workflowTask: { name: 'ping', taskReferenceName: `ping${seq}`, type: 'CONNECTOR' },
    input: { connector: 'flaky', operation: 'ping' },
    attempt: 1,
    previousOutput: {},
  };
}

function context(clock: ManualClock): CallContext {
  return {
    signal: new AbortController().signal,
    fetch: (input: Parameters<typeof undiciFetch>[0], init?: Parameters<typeof undiciFetch>[1]) =>
      undiciFetch(input, { ...init, dispatcher: agent }),
    dispatcher: agent,
    resolveSecrets: (value) => Promise.resolve(value),
    secretValues: () => Promise.resolve(new Map()),
    log: () => {},
    now: () => clock.now(),
  };
}

const reasonOf = (out: CallOutcome): string =>
  out.status === 'FAILED' || out.status === 'FAILED_WITH_TERMINAL_ERROR' ? out.reason : out.status;

for (const storeCase of storeCases()) {
  describe(`automatic circuit breaker on ${storeCase.name}`, () => {
    let opened: OpenedStore;
    let target: HttpTarget;
    let up = false;
    const clock = new ManualClock();
    let nodeA: { registry: RegistryService; handler: ConnectorHandler };
    let nodeB: { registry: RegistryService; handler: ConnectorHandler };

    before(async () => {
      opened = await storeCase.open();
      target = await startHttpTarget((req, res) => {
        if (req.url?.startsWith('/missing')) return json(res, 404, { error: 'no such thing' });
        return up ? json(res, 200, { pong: true }) : json(res, 503, { error: 'down' });
      });
      const node = () => {
        const registry = new RegistryService(opened.store, clock);
        return { registry, handler: new ConnectorHandler(registry) };
      };
      nodeA = node();
      nodeB = node();
    });
    after(async () => {
      await target.close();
      await opened.cleanup();
    });
    beforeEach(async () => {
      up = false;
      clock.advance(1_000);
      await nodeA.registry.put({
        name: 'flaky',
        kind: 'connector',
        url: target.url,
        openApi: PING_API,
        circuitBreakerEnabled: true,
        config: { circuitBreakerConfig: BREAKER },
      });
      await nodeA.registry.setCircuit('flaky', 'CLOSED');
    });

    it('opens after the failure threshold, for every node, fails calls at once, half-opens after the wait, and closes on good trial calls', async () => {
      for (let i = 0; i < 3; i++) {
        assert.match(reasonOf(await nodeA.handler.call(ping(), context(clock))), /answered 503/);
        assert.equal((await nodeA.registry.circuitStatus('flaky')).currentState, 'CLOSED', `after ${i + 1}`);
      }
      // The window is full (4 calls) and 100% failed ≥ 50%: open.
      assert.match(reasonOf(await nodeA.handler.call(ping(), context(clock))), /answered 503/);
      const openedAt = clock.now();
      const status = await nodeB.registry.circuitStatus('flaky');
      assert.deepEqual(status, {
        service: 'flaky',
        previousState: 'CLOSED',
        currentState: 'OPEN',
        transitionTimestamp: openedAt,
        message: 'opened by the breaker: 4 of 4 failed (100% ≥ 50%) of the last calls',
      });

      // Open on the other node too (the record is shared): no request is made.
      const requests = target.requests.length;
      const refused = await nodeB.handler.call(ping(), context(clock));
      assert.equal(refused.status, 'FAILED', 'retryable: the task tries again later');
      assert.match(
        reasonOf(refused),
        new RegExp(
          `circuit breaker of service 'flaky' is open .*trial calls from ${new Date(openedAt + 30_000).toISOString()}`,
        ),
      );
      clock.advance(29_999);
      assert.match(reasonOf(await nodeA.handler.call(ping(), context(clock))), /is open/);
      assert.equal(target.requests.length, requests, 'no request while open');

      clock.advance(1);
      const half = await nodeA.registry.circuitStatus('flaky');
      assert.equal(half.currentState, 'HALF_OPEN');
      assert.equal(half.previousState, 'OPEN');
      assert.equal(half.transitionTimestamp, openedAt + 30_000);

      up = true;
      assert.equal((await nodeA.handler.call(ping(), context(clock))).status, 'COMPLETED');
      assert.equal(
        (await nodeA.registry.circuitStatus('flaky')).currentState,
        'HALF_OPEN',
        'one trial of two',
      );
      assert.equal((await nodeA.handler.call(ping(), context(clock))).status, 'COMPLETED');
      const closed = await nodeB.registry.circuitStatus('flaky');
      assert.equal(closed.currentState, 'CLOSED');
      assert.equal(closed.previousState, 'HALF_OPEN');
      assert.match(closed.message, /closed by the breaker: 2 trial calls, 0 failed/);
      assert.equal((await nodeB.handler.call(ping(), context(clock))).status, 'COMPLETED');
    });

    it('opens again when the trial calls fail, and waits again from then', async () => {
      for (let i = 0; i < 4; i++) await nodeA.handler.call(ping(), context(clock));
      assert.equal((await nodeA.registry.circuitStatus('flaky')).currentState, 'OPEN');
      clock.advance(30_000);
      assert.equal((await nodeA.registry.circuitStatus('flaky')).currentState, 'HALF_OPEN');
      await nodeA.handler.call(ping(), context(clock));
      await nodeA.handler.call(ping(), context(clock));
      const reopened = await nodeA.registry.circuitStatus('flaky');
      assert.equal(reopened.currentState, 'OPEN');
      assert.equal(reopened.transitionTimestamp, clock.now());
      assert.match(reopened.message, /opened again by the breaker: 2 of 2 failed/);
      clock.advance(29_000);
      assert.equal((await nodeA.registry.circuitStatus('flaky')).currentState, 'OPEN');
      clock.advance(1_000);
      assert.equal((await nodeA.registry.circuitStatus('flaky')).currentState, 'HALF_OPEN');
    });

    it('a client error (4xx) is an answer, not a failure of the service; a circuit an operator opened never half-opens', async () => {
      await nodeA.registry.put({
        name: 'flaky',
        kind: 'connector',
        url: `${target.url}/missing`,
        openApi: PING_API,
        circuitBreakerEnabled: true,
        config: { circuitBreakerConfig: BREAKER },
      });
      up = true;
      for (let i = 0; i < 6; i++)
        assert.match(reasonOf(await nodeA.handler.call(ping(), context(clock))), /answered 404/);
      assert.equal((await nodeA.registry.circuitStatus('flaky')).currentState, 'CLOSED');

      await nodeA.registry.setCircuit('flaky', 'OPEN');
      clock.advance(3_600_000);
      assert.equal((await nodeA.registry.circuitStatus('flaky')).currentState, 'OPEN');
      assert.match(
        reasonOf(await nodeA.handler.call(ping(), context(clock))),
        /is open \(POST \/api\/registry\/service\/flaky\/circuit-breaker\/close to close it\)/,
      );
    });

    it('tool calls and document analyses count too: a service that does not answer opens its circuit', async () => {
      const closed = await startHttpTarget(() => {});
      const gone = closed.url;
      await closed.close();
      const sessions = new McpSessions();
      const tools = new McpToolHandler(nodeA.registry, sessions);
      const documents = new DocumentAnalysisHandler(nodeA.registry);
      const config = { circuitBreakerConfig: { ...BREAKER, minimumNumberOfCalls: 2, slidingWindowSize: 2 } };
      await nodeA.registry.put({
        name: 'gone-tools',
        kind: 'mcp',
        url: `${gone}/mcp`,
        circuitBreakerEnabled: true,
        config,
      });
      await nodeA.registry.put({
        name: 'gone-docs',
        kind: 'document-intelligence',
        url: gone,
        circuitBreakerEnabled: true,
        config,
      });
      const toolCall = (): SystemCall => ({
        ...ping(),
        taskType: 'CALL_TOOL',
        declaredType: 'CALL_TOOL',
        input: { service: 'gone-tools', tool: 'echo', arguments: {} },
      });
      const docCall = (): SystemCall => ({
        ...ping(),
        taskType: 'DOCUMENT_INTELLIGENCE',
        declaredType: 'DOCUMENT_INTELLIGENCE',
        input: { service: 'gone-docs', modelId: 'm', urlSource: 'https://example.com/a.pdf' },
      });
      try {
        for (const [name, next] of [
          ['gone-tools', toolCall],
          ['gone-docs', docCall],
        ] as const) {
          for (let i = 0; i < 2; i++) {
            const out = await (name === 'gone-tools' ? tools : documents).call(next(), context(clock));
            assert.equal(out.status, 'FAILED');
            assert.doesNotMatch(reasonOf(out), /circuit/);
          }
          assert.equal((await nodeB.registry.circuitStatus(name)).currentState, 'OPEN', name);
          const refused = await (name === 'gone-tools' ? tools : documents).call(next(), context(clock));
          assert.match(reasonOf(refused), new RegExp(`circuit breaker of service '${name}' is open`));
        }
      } finally {
        await sessions.close();
      }
    });

    it('refuses bad breaker settings at registration, naming the field', async () => {
      for (const [config, field] of [
        [{ failureRateThreshold: 0 }, 'failureRateThreshold'],
        [{ slidingWindowSize: 2.5 }, 'slidingWindowSize'],
        [{ waitDurationInOpenState: 'PT60S' }, 'waitDurationInOpenState'],
        [
          { automaticTransitionFromOpenToHalfOpenEnabled: 'yes' },
          'automaticTransitionFromOpenToHalfOpenEnabled',
        ],
        [{ nonsense: 1 }, 'nonsense'],
      ] as const) {
        await assert.rejects(
          nodeA.registry.put({
            name: 'bad',
            kind: 'mcp',
            url: 'http://127.0.0.1:9/mcp',
            circuitBreakerEnabled: true,
            config: { circuitBreakerConfig: config as unknown as JsonObject },
          }),
          (err: { validationErrors?: Array<{ path: string }> }) =>
            err.validationErrors?.[0]?.path === `body.config.circuitBreakerConfig.${field}`,
          field,
        );
      }
    });
  });
}

describe('circuit breakers of one node (pure, on an injected clock)', () => {
  const clock = new ManualClock();
  const now = () => clock.now();
  let writes: Array<{ state: string; message: string; at: number }>;
  let breakers: CircuitBreakers;
  const transition: CircuitTransition = (_name, _from, to, at) => {
    writes.push({ ...to, at });
    return Promise.resolve();
  };
  const record = (over: Partial<ServiceRecord> = {}): ServiceRecord => ({
    name: 'svc',
    kind: 'mcp',
    url: 'http://x',
    methods: [],
    circuitBreakerEnabled: true,
    config: {
      circuitBreakerConfig: {
        ...BREAKER,
        slowCallRateThreshold: 50,
        slowCallDurationThreshold: 2,
      },
    },
    circuitBreaker: { state: 'CLOSED', transitionTimestamp: 0 },
    ...over,
  });
  beforeEach(() => {
    writes = [];
    breakers = new CircuitBreakers(transition);
  });

  it('counts slow calls against the slow-call threshold', async () => {
    for (let i = 0; i < 4; i++) {
      const permit = breakers.admit(record(), now);
      clock.advance(i % 2 === 0 ? 2_001 : 100);
      await permit.end('success');
    }
    assert.equal(writes.length, 1);
    assert.equal(writes[0]?.state, 'OPEN');
    assert.match(writes[0]?.message ?? '', /2 of 4 slower than 2 s \(50% ≥ 50%\)/);
  });

  it('a half-open circuit lets through this many trial calls per node; a cancelled one gives its place back', async () => {
    const halfOpen = record({
      circuitBreaker: { state: 'OPEN', transitionTimestamp: clock.now() - 30_000, openedBy: 'breaker' },
    });
    const first = breakers.admit(halfOpen, now);
    breakers.admit(halfOpen, now);
    assert.throws(
      () => breakers.admit(halfOpen, now),
      /is half-open since .* and its 2 trial calls are under way/,
    );
    await first.end(undefined);
    const third = breakers.admit(halfOpen, now);
    await third.end('success');
    assert.equal(writes.length, 0, 'no verdict before every trial call reported');
  });

  it('without circuitBreakerEnabled nothing is counted and nothing opens by itself', async () => {
    const plain = record({ circuitBreakerEnabled: false });
    for (let i = 0; i < 20; i++) await breakers.admit(plain, now).end('failure');
    assert.equal(writes.length, 0);
  });

  it('fewer calls than minimumNumberOfCalls give no verdict; the window keeps the last slidingWindowSize', async () => {
    const r = record();
    await breakers.admit(r, now).end('failure');
    await breakers.admit(r, now).end('failure');
    await breakers.admit(r, now).end('success');
    assert.equal(writes.length, 0);
    await breakers.admit(r, now).end('success'); // 2 of 4 = 50%: opens
    assert.equal(writes.length, 1);
  });
});
