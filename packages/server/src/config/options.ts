import { isIP } from 'node:net';
import path from 'node:path';

import { ENV_KEYS, type EnvName, type RawEnv } from './env.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Validated, defaulted, frozen settings. Everything past startup receives this, never the env. */
export interface Options {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  readonly dbPoolSize: number;
  readonly sqliteSynchronous: 'FULL' | 'NORMAL';
  readonly logLevel: LogLevel;
  readonly highPriorityThreshold: number;
  readonly maxBodyBytes: number;
  readonly shutdownGraceMs: number;
  readonly scriptMemoryMb: number;
  readonly scriptTimeoutMs: number;
  readonly timerIdleMs: number;
  readonly pollDataFlushMs: number;
  /** The 32-byte key sealing stored secrets; absent when BATON_SECRETS_KEY is unset. */
  readonly secretsKey: Buffer | undefined;
  /** System calls (HTTP, CALL_TOOL, …) in flight at once on this node. */
  readonly systemTaskConcurrency: number;
  readonly httpMaxResponseBytes: number;
  /** Egress rules of HTTP tasks (host names and CIDRs), parsed by `integrations/http/egress-policy.ts`. */
  readonly httpDeny: readonly string[];
  /** undefined: any destination not denied. */
  readonly httpAllow: readonly string[] | undefined;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function defaultOf(name: EnvName): string {
  const key = ENV_KEYS.find((k) => k.name === name);
  return (key && 'default' in key ? key.default : undefined) ?? '';
}

function integer(raw: RawEnv, name: EnvName, min: number, max: number): number {
  const text = raw[name] ?? defaultOf(name);
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got '${text}'`);
  }
  return value;
}

function oneOf<T extends string>(raw: RawEnv, name: EnvName, allowed: readonly T[]): T {
  const text = (raw[name] ?? defaultOf(name)).trim();
  const match = allowed.find((a) => a.toLowerCase() === text.toLowerCase());
  if (!match) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got '${text}'`);
  return match;
}

/** BATON_SECRETS_KEY: exactly 32 bytes, written as 64 hex digits or as base64. */
function secretsKey(raw: RawEnv): Buffer | undefined {
  const text = raw.BATON_SECRETS_KEY?.trim();
  if (text === undefined || text === '') return undefined;
  const key = /^[0-9a-fA-F]{64}$/.test(text)
    ? Buffer.from(text, 'hex')
    : /^[A-Za-z0-9+/_-]+={0,2}$/.test(text)
      ? Buffer.from(text, 'base64')
      : undefined;
  if (key?.length !== 32) {
    throw new ConfigError(
      'BATON_SECRETS_KEY must be 32 bytes written as base64 or as 64 hex digits (make one with: openssl rand -base64 32)',
    );
  }
  return key;
}

/** A comma list of host names and CIDRs (`BATON_HTTP_DENY`, `BATON_HTTP_ALLOW`); undefined when unset. */
function egressList(raw: RawEnv, name: EnvName): readonly string[] | undefined {
  // Unset: the setting's default when it has one (the deny list's link-local ranges), else none.
  const key = ENV_KEYS.find((k) => k.name === name);
  const text = raw[name] ?? (key !== undefined && 'default' in key ? key.default : undefined);
  if (text === undefined) return undefined;
  const entries = text
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== '');
  for (const entry of entries) {
    const problem = egressEntryProblem(entry);
    if (problem !== undefined) throw new ConfigError(`${name}: '${entry}' ${problem}`);
  }
  return Object.freeze(entries);
}

/** Why an egress rule is malformed, or undefined: a host name (`*.example.com` too), an address or a CIDR. */
export function egressEntryProblem(entry: string): string | undefined {
  const slash = entry.indexOf('/');
  if (slash >= 0) {
    const address = entry.slice(0, slash);
    const bits = Number(entry.slice(slash + 1));
    const max = isIP(address) === 4 ? 32 : isIP(address) === 6 ? 128 : 0;
    if (max === 0) return 'is not a CIDR (address/bits)';
    if (!Number.isInteger(bits) || bits < 0 || bits > max) return `has prefix length outside 0..${max}`;
    return undefined;
  }
  if (isIP(entry) !== 0) return undefined;
  return /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(entry)
    ? undefined
    : 'is not a host name, an IP address or a CIDR';
}

/** Turns raw settings into Options, refusing bad values with a message that names the setting. */
export function compileOptions(raw: RawEnv, cwd = process.cwd()): Options {
  const databaseUrl = raw.BATON_DATABASE_URL;
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('BATON_DATABASE_URL must start with postgres:// or postgresql://');
  }
  return Object.freeze({
    port: integer(raw, 'BATON_PORT', 0, 65535),
    host: raw.BATON_HOST ?? defaultOf('BATON_HOST'),
    dataDir: path.resolve(cwd, raw.BATON_DATA_DIR ?? defaultOf('BATON_DATA_DIR')),
    databaseUrl,
    dbPoolSize: integer(raw, 'BATON_DB_POOL_SIZE', 1, 1000),
    sqliteSynchronous: oneOf(raw, 'BATON_SQLITE_SYNCHRONOUS', ['FULL', 'NORMAL'] as const),
    logLevel: oneOf(raw, 'BATON_LOG_LEVEL', LOG_LEVELS),
    highPriorityThreshold: integer(raw, 'BATON_HIGH_PRIORITY_THRESHOLD', 0, 100),
    maxBodyBytes: integer(raw, 'BATON_MAX_BODY_BYTES', 1024, 1024 * 1024 * 1024),
    shutdownGraceMs: integer(raw, 'BATON_SHUTDOWN_GRACE_MS', 0, 600_000),
    scriptMemoryMb: integer(raw, 'BATON_SCRIPT_MEMORY_MB', 1, 1024),
    scriptTimeoutMs: integer(raw, 'BATON_SCRIPT_TIMEOUT_MS', 10, 60_000),
    timerIdleMs: integer(raw, 'BATON_TIMER_IDLE_MS', 10, 60_000),
    pollDataFlushMs: integer(raw, 'BATON_POLL_DATA_FLUSH_MS', 10, 60_000),
    secretsKey: secretsKey(raw),
    systemTaskConcurrency: integer(raw, 'BATON_SYSTEM_TASK_CONCURRENCY', 1, 10_000),
    httpMaxResponseBytes: integer(raw, 'BATON_HTTP_MAX_RESPONSE_BYTES', 1, 1024 * 1024 * 1024),
    httpDeny: Object.freeze(egressList(raw, 'BATON_HTTP_DENY') ?? []),
    httpAllow: egressList(raw, 'BATON_HTTP_ALLOW'),
  });
}

/** Settings safe to show: secret ones are reported as set or not, never by value. */
export function publicSettings(options: Options, raw: RawEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of ENV_KEYS) {
    const value = raw[key.name];
    if ('secret' in key && key.secret) out[key.name] = value === undefined ? '(unset)' : '(set)';
    else out[key.name] = value ?? ('default' in key ? key.default : '(unset)');
  }
  out.store = options.databaseUrl ? 'postgres' : 'sqlite';
  return out;
}
