import path from 'node:path';

import { type AuthOptions, compileAuthOptions } from './auth-options.js';
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
  /** Authentication, roles and HTTP guards (rate limits, CORS). */
  readonly auth: AuthOptions;
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

/** Turns raw settings into Options, refusing bad values with a message that names the setting. */
export function compileOptions(raw: RawEnv, cwd = process.cwd()): Options {
  const databaseUrl = raw.BATON_DATABASE_URL;
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('BATON_DATABASE_URL must start with postgres:// or postgresql://');
  }
  const host = raw.BATON_HOST ?? defaultOf('BATON_HOST');
  let auth: AuthOptions;
  try {
    auth = compileAuthOptions(raw, host);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  return Object.freeze({
    port: integer(raw, 'BATON_PORT', 0, 65535),
    host,
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
    auth,
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
  out.auth = options.auth.mode;
  return out;
}
