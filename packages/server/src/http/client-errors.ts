import type { Socket } from 'node:net';

import type { ErrorBody } from '@baton/protocol';

import { fail } from '../errors.js';
import { errorBody } from './error-handler.js';

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (a malformed request line or
 * header, headers over the size limit, a client too slow to send its request): the answer is the
 * error body every other refusal carries, then the connection closes (the stream cannot be trusted
 * to hold a next request).
 */
/** How long a refused connection may linger after its answer. */
const CLOSE_GRACE_MS = 1000;

export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  let body: ErrorBody;
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    body = errorBody(fail('REQUEST_TIMEOUT'));
  } else if (error.code === 'HPE_HEADER_OVERFLOW') {
    body = errorBody(fail('REQUEST_HEADERS_TOO_LARGE'));
  } else {
    body = errorBody(fail('REQUEST_NOT_HTTP'));
  }
  const text = JSON.stringify(body);
  const reason = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' }[
    body.status
  ];
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  // Ended rather than destroyed, so the answer is flushed before the connection goes; a client
  // that keeps the connection open anyway is cut off a moment later.
  socket.end(
    `HTTP/1.1 ${body.status} ${reason ?? 'Bad Request'}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
  setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
}
