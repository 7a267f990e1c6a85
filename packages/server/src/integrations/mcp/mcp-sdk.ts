import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/**
 * The MCP SDK, loaded on the first tool call instead of at start: with its schemas it holds
 * about 20 MB of a node's memory, which a node that never calls a tool should not carry.
 */
export interface McpSdk {
  readonly Client: typeof Client;
  readonly StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
  readonly StreamableHTTPError: typeof StreamableHTTPError;
  readonly McpError: typeof McpError;
  readonly ErrorCode: typeof ErrorCode;
}

let loading: Promise<McpSdk> | undefined;
let loaded: McpSdk | undefined;

/** The SDK, loaded once; a failed load is tried again on the next call. */
export function mcpSdk(): Promise<McpSdk> {
  loading ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(
    ([client, http, types]) =>
      (loaded = {
        Client: client.Client,
        StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
        StreamableHTTPError: http.StreamableHTTPError,
        McpError: types.McpError,
        ErrorCode: types.ErrorCode,
      }),
    (err: unknown) => {
      loading = undefined;
      throw err;
    },
  );
  return loading;
}

/**
 * The SDK if it is loaded. An error the SDK raised can only exist once it is, so a check of
 * what kind an error is needs no load.
 */
export function loadedMcpSdk(): McpSdk | undefined {
  return loaded;
}

/**
 * What a protocol error of the SDK says: `no-answer` when the server never answered (a request
 * timeout, a closed connection), `answered` for an error it sent; undefined for any other error.
 */
export function mcpFailure(err: unknown): 'answered' | 'no-answer' | undefined {
  if (loaded === undefined || !(err instanceof loaded.McpError)) return undefined;
  const noAnswer: number[] = [loaded.ErrorCode.RequestTimeout, loaded.ErrorCode.ConnectionClosed];
  return noAnswer.includes(err.code) ? 'no-answer' : 'answered';
}
