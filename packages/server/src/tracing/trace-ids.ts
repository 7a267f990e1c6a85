import { createHash, randomBytes } from 'node:crypto';

import type { RunTrace } from '@baton/protocol';

/**
 * W3C trace context ids. A task attempt's span id is derived from its task id, so whichever node
 * ends the attempt (or hands it to a worker) names the same span without asking anyone.
 */

const INVALID_TRACE = '0'.repeat(32);
const INVALID_SPAN = '0'.repeat(16);

export function newTraceId(): string {
  return randomBytes(16).toString('hex');
}

export function newSpanId(): string {
  return randomBytes(8).toString('hex');
}

/** The span id of the task attempt `taskId` (every attempt has its own task id). */
export function taskSpanId(taskId: string): string {
  const id = createHash('sha256').update(`task:${taskId}`).digest('hex').slice(0, 16);
  return id === INVALID_SPAN ? '0000000000000001' : id;
}

/** A span id derived from a name, for spans that must be named the same on every node. */
export function derivedSpanId(name: string): string {
  const id = createHash('sha256').update(name).digest('hex').slice(0, 16);
  return id === INVALID_SPAN ? '0000000000000001' : id;
}

export interface ParsedTraceparent {
  traceId: string;
  spanId: string;
  sampled: boolean;
}

/** `00-<32 hex>-<16 hex>-<2 hex>`; undefined for anything else (a bad header is ignored, as W3C says). */
export function parseTraceparent(text: string | undefined): ParsedTraceparent | undefined {
  if (text === undefined) return undefined;
  const match = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/.exec(text.trim());
  if (!match) return undefined;
  const [, version = '', traceId = '', spanId = '', flags = '00', rest] = match;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (traceId === INVALID_TRACE || spanId === INVALID_SPAN) return undefined;
  return { traceId, spanId, sampled: (parseInt(flags, 16) & 1) === 1 };
}

export function formatTraceparent(traceId: string, spanId: string, sampled: boolean): string {
  return `00-${traceId}-${spanId}-${sampled ? '01' : '00'}`;
}

/** The traceparent of a task attempt of a run. */
export function taskTraceparent(trace: RunTrace, taskId: string): string {
  return formatTraceparent(trace.traceId, taskSpanId(taskId), trace.sampled);
}
