import type { JsonObject, JsonValue } from '@baton/protocol';

/** Largest response body a connector or analysis call keeps; the rest is cut off and said so. */
export const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

interface ResponseLike {
  readonly status: number;
  readonly statusText: string;
  readonly headers: {
    forEach(fn: (value: string, key: string) => void): void;
    get(name: string): string | null;
  };
  readonly body: AsyncIterable<Uint8Array> | null;
}

/** The response in HTTP task's shape: `{statusCode, headers, body, reasonPhrase}` (JSON parsed when it is JSON). */
export interface HttpAnswer {
  statusCode: number;
  headers: Record<string, string>;
  body: JsonValue;
  reasonPhrase: string;
  /** The body as text (for failure reasons). */
  text: string;
}

export async function readAnswer(res: ResponseLike, maxBytes = MAX_RESPONSE_BYTES): Promise<HttpAnswer> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  if (res.body) {
    for await (const chunk of res.body) {
      if (size + chunk.byteLength > maxBytes) {
        chunks.push(chunk.subarray(0, maxBytes - size));
        truncated = true;
        break;
      }
      chunks.push(chunk);
      size += chunk.byteLength;
    }
  }
  const text = Buffer.concat(chunks).toString('utf8');
  const headers: Record<string, string> = {};
  res.headers.forEach((value, key) => {
    headers[key] = value;
  });
  let body: JsonValue = text;
  if (!truncated && /json/i.test(res.headers.get('content-type') ?? '') && text !== '') {
    try {
      body = JSON.parse(text) as JsonValue;
    } catch {
      body = text;
    }
  }
  if (truncated) body = `${text}… (cut at ${maxBytes} bytes)`;
  return { statusCode: res.status, headers, body, reasonPhrase: res.statusText, text };
}

export function responseOutput(answer: HttpAnswer): JsonObject {
  return {
    response: {
      statusCode: answer.statusCode,
      headers: answer.headers,
      body: answer.body,
      reasonPhrase: answer.reasonPhrase,
    },
  };
}
