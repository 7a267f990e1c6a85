import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';

import { type Agent, buildConnector, fetch as undiciFetch, type Dispatcher } from 'undici';

import { TracedAgent } from '../../tracing/outgoing-trace.js';
import type { CallFetch } from '../call-handler.js';
import { EgressDeniedError, type EgressPolicy } from './egress-policy.js';

/**
 * undici agents whose every new connection passes the egress policy: the host name is checked
 * before DNS, each resolved address after it (only allowed addresses are dialled), and an
 * address literal as an address. A redirect to another origin opens a new connection, so it is
 * checked the same way; a refused destination never gets a connection. Connections are pooled
 * and kept alive per origin, so repeated calls to one service reuse them.
 *
 * Agents are kept per connect timeout (HTTP tasks set `connectionTimeOut` per call and undici
 * takes it per agent); a handful of distinct values is the norm, and the pool is bounded.
 */

const MAX_AGENTS = 16;

export class EgressAgents {
  private readonly agents = new Map<number, Agent>();
  private closed = false;

  constructor(
    private readonly policy: EgressPolicy,
    private readonly defaultConnectTimeoutMs = 10_000,
  ) {}

  /** The agent for this connect timeout (the default one when the pool is full). */
  agent(connectTimeoutMs = this.defaultConnectTimeoutMs): Agent {
    const existing = this.agents.get(connectTimeoutMs);
    if (existing) return existing;
    if (this.agents.size >= MAX_AGENTS && connectTimeoutMs !== this.defaultConnectTimeoutMs)
      return this.agent(this.defaultConnectTimeoutMs);
    // Traced: a call's requests carry its span's traceparent (none outside a traced call).
    const agent = new TracedAgent({
      connect: this.connector(connectTimeoutMs),
      keepAliveTimeout: 10_000,
    });
    this.agents.set(connectTimeoutMs, agent);
    return agent;
  }

  /** undici's fetch over the default agent (for handlers that speak fetch, e.g. MCP transports). */
  readonly fetch: CallFetch = (input, init) =>
    undiciFetch(input, { ...init, dispatcher: init?.dispatcher ?? this.agent() });

  get dispatcher(): Dispatcher {
    return this.agent();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const agents = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(agents.map((a) => a.destroy().catch(() => {})));
  }

  private connector(timeout: number): buildConnector.connector {
    const policy = this.policy;
    const lookup = checkedLookup(policy);
    const base = buildConnector({ timeout, lookup });
    return (options, callback) => {
      const host = options.hostname;
      const verdict = policy.checkHost(host);
      if (!verdict.allowed) {
        callback(new EgressDeniedError(host, verdict.rule ?? 'the egress policy'), null);
        return;
      }
      // The address actually dialled is judged too (whatever resolved or wrote it): a socket
      // that reached a denied address is closed before a byte is sent.
      base(options, (err, socket) => {
        if (err || !socket) {
          callback(err ?? new Error('connection failed'), null);
          return;
        }
        const remote = socket.remoteAddress;
        const after = remote === undefined ? verdict : policy.checkAddress(host, remote);
        if (!after.allowed) {
          socket.destroy();
          callback(
            new EgressDeniedError(`${host} (${remote ?? '?'})`, after.rule ?? 'the egress policy'),
            null,
          );
          return;
        }
        callback(null, socket);
      });
    };
  }
}

/**
 * A `net.connect` lookup that resolves the name and drops every address the policy denies,
 * failing (with the rule) when none is left. Address literals never reach a lookup; the
 * connector checks them.
 */
function checkedLookup(policy: EgressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) {
        callback(err, '', 0);
        return;
      }
      let refusal: string | undefined;
      const allowed = addresses.filter((a) => {
        const verdict = policy.checkAddress(hostname, a.address);
        if (!verdict.allowed) refusal ??= `${a.address}: ${verdict.rule ?? 'the egress policy'}`;
        return verdict.allowed;
      });
      const first = allowed[0];
      if (first === undefined) {
        const denied = new EgressDeniedError(hostname, refusal ?? 'the egress policy');
        callback(denied, '', 0);
        return;
      }
      if (options.all === true) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
      else callback(null, first.address, first.family);
    });
  };
}
