import { AsyncLocalStorage } from 'node:async_hooks';

import { Agent, type Dispatcher } from 'undici';
import { copyWith } from '../copy-with.js';

/**
 * The `traceparent` of the call being made here (a system call's client span): every request
 * a call sends through Baton's egress agents carries it, whatever client the call's handler
 * uses (its own HTTP requests, fetch-based SDKs, MCP transports), so the called service joins
 * the trace. Outside a traced call the store is empty and requests go out untouched.
 */
export const outgoingTrace = new AsyncLocalStorage<string>();

type Headers = Dispatcher.DispatchOptions['headers'];

function withTraceparent(headers: Headers, traceparent: string): Headers {
  if (headers === undefined || headers === null) return { traceparent };
  if (Array.isArray(headers)) {
    const flat: readonly string[] = headers;
    for (let i = 0; i < flat.length; i += 2) if (flat[i]?.toLowerCase() === 'traceparent') return headers;
    return [...flat, 'traceparent', traceparent];
  }
  if (typeof headers === 'object' && !(Symbol.iterator in headers)) {
    const record = headers as Record<string, string | string[] | undefined>;
    if (Object.keys(record).some((k) => k.toLowerCase() === 'traceparent')) return headers;
    return copyWith(record, { traceparent });
  }
  const entries: Array<[string, string | string[] | undefined]> = [
    ...(headers as Iterable<[string, string | string[] | undefined]>),
  ];
  if (entries.some(([k]) => k.toLowerCase() === 'traceparent')) return headers;
  return Object.fromEntries([...entries, ['traceparent', traceparent]]) as Headers;
}

/** An undici Agent that adds the active call's `traceparent` to each request it dispatches. */
export class TracedAgent extends Agent {
  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const traceparent = outgoingTrace.getStore();
    if (traceparent === undefined) return super.dispatch(options, handler);
    return super.dispatch(
      copyWith(options, { headers: withTraceparent(options.headers, traceparent) }),
      handler,
    );
  }
}
