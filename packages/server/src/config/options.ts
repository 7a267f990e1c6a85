import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import type { BlobSettings } from './blob-settings.js';
import { type AuthOptions, compileAuthOptions } from './auth-options.js';
import { ENV_KEYS, type EnvName, type RawEnv } from './env.js';
import { compileTracingOptions, type TracingOptions } from './tracing-options.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Validated, defaulted, frozen settings. Everything past startup receives this, never the env. */
export interface Options {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  readonly dbPoolSize: number;
  readonly dbConnectTimeoutMs: number;
  readonly dbStatementTimeoutMs: number;
  /** How long a starting node retries while PostgreSQL is away (database-wait.ts); 0 = not at all. */
  readonly dbStartWaitMs: number;
  /** Members of one group commit at most (PostgreSQL); 1 turns it off. */
  readonly dbGroupCommit: number;
  /** Node processes this host runs on the same port (PostgreSQL only); 1 = this process serves alone. */
  readonly processes: number;
  readonly sqliteSynchronous: 'FULL' | 'NORMAL';
  readonly logLevel: LogLevel;
  readonly highPriorityThreshold: number;
  /** Most branches one dynamic fork may make (engine `EngineSettings.maxForkBranches`). */
  readonly maxForkBranches: number;
  /** How far ahead a task of a run under way goes in its queue (engine `EngineSettings.queueRunAgeMs`). */
  readonly queueRunAgeMs: number;
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
  /** Tokens the LLM tasks of one run may use in all (0: no budget); a task's `runTokenBudget` overrides it. */
  readonly llmRunTokenBudget: number;
  /** Egress rules of HTTP tasks (host names and CIDRs), parsed by `integrations/http/egress-policy.ts`. */
  readonly httpDeny: readonly string[];
  /** undefined: any destination not denied. */
  readonly httpAllow: readonly string[] | undefined;
  /** Where the built web UI is; served at `/` when it holds an index.html. */
  readonly uiDir: string;
  readonly amqpUrl: string | undefined;
  readonly natsUrl: string | undefined;
  readonly natsAckWaitMs: number;
  readonly eventExecutionRetentionDays: number;
  readonly scheduleExecutionRetentionDays: number;
  readonly eventHandlerRefreshMs: number;
  /** Blob storage: a directory under the data dir, or an S3-compatible bucket. */
  readonly blobs: BlobSettings;
  readonly payloadInlineMaxBytes: number;
  readonly payloadMaxBytes: number;
  readonly payloadUrlTtlSeconds: number;
  /** HMAC key of Baton-served payload URLs; undefined = a key file in the data dir. */
  readonly payloadSigningKey: string | undefined;
  readonly publicUrl: string | undefined;
  /** Runs that ended this many ms ago are archived; undefined = the archiver is off. */
  readonly archiveAfterMs: number | undefined;
  readonly archiveIntervalMs: number;
  readonly archiveBatch: number;
  /** Authentication, roles and HTTP guards (rate limits, CORS). */
  readonly auth: AuthOptions;
  /** OpenTelemetry tracing; off unless an OTLP endpoint is configured. */
  readonly tracing: TracingOptions;
}

/**
 * The UI build output as laid out in the repository: this file is
 * packages/server/dist/src/config/options.js, the UI's build goes to packages/ui/dist/web. Resolved
 * from the server package, not the working directory, so `npm start` from anywhere finds it.
 */
function defaultUiDir(): string {
  return fileURLToPath(new URL('../../../../ui/dist/web', import.meta.url));
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

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `30d`, `12h`, `1h30m`, `90s`, `500ms`: a positive duration in ms. */
export function parseDuration(text: string): number | undefined {
  const compact = text.trim().toLowerCase();
  if (!/^(\d+(ms|s|m|h|d))+$/.test(compact)) return undefined;
  let total = 0;
  for (const [, amount = '0', unit = 's'] of compact.matchAll(/(\d+)(ms|s|m|h|d)/g)) {
    total += Number(amount) * (DURATION_UNITS[unit] ?? 0);
  }
  return total > 0 && Number.isSafeInteger(total) ? total : undefined;
}

function blobSettings(raw: RawEnv, dataDir: string): BlobSettings {
  const url = raw.BATON_BLOB_URL;
  if (url === undefined) return { kind: 'filesystem', directory: path.join(dataDir, 'blobs') };
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(url);
  if (!match) throw new ConfigError('BATON_BLOB_URL must be s3://bucket or s3://bucket/prefix');
  const rawPrefix = (match[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (rawPrefix !== '' && !/^[A-Za-z0-9._\-/]+$/.test(rawPrefix)) {
    throw new ConfigError('BATON_BLOB_URL prefix may only hold letters, digits, ".", "_", "-" and "/"');
  }
  const endpoint = raw.BATON_S3_ENDPOINT;
  if (endpoint !== undefined && !/^https?:\/\/[^\s]+$/.test(endpoint)) {
    throw new ConfigError('BATON_S3_ENDPOINT must be an http:// or https:// URL');
  }
  const keyId = raw.BATON_S3_ACCESS_KEY_ID;
  const secret = raw.BATON_S3_SECRET_ACCESS_KEY;
  if ((keyId === undefined) !== (secret === undefined)) {
    throw new ConfigError('BATON_S3_ACCESS_KEY_ID and BATON_S3_SECRET_ACCESS_KEY must be set together');
  }
  return {
    kind: 's3',
    bucket: match[1] ?? '',
    prefix: rawPrefix === '' ? '' : `${rawPrefix}/`,
    region: raw.BATON_S3_REGION ?? defaultOf('BATON_S3_REGION'),
    forcePathStyle: oneOf(raw, 'BATON_S3_FORCE_PATH_STYLE', ['true', 'false'] as const) === 'true',
    ...(endpoint !== undefined && { endpoint }),
    ...(keyId !== undefined &&
      secret !== undefined && { credentials: { accessKeyId: keyId, secretAccessKey: secret } }),
  };
}

/**
 * BATON_PROCESSES: a count, or `auto` for one per CPU. More than one needs PostgreSQL: the
 * processes are nodes that coordinate through the database, and SQLite has one writer.
 */
function processCount(raw: RawEnv, databaseUrl: string | undefined, cpus: number): number {
  const text = (raw.BATON_PROCESSES ?? defaultOf('BATON_PROCESSES')).trim();
  const auto = text.toLowerCase() === 'auto';
  const count = auto ? Math.min(256, Math.max(1, cpus)) : Number(text);
  if (!Number.isInteger(count) || count < 1 || count > 256) {
    throw new ConfigError(`BATON_PROCESSES must be auto or an integer from 1 to 256, got '${text}'`);
  }
  if (count > 1 && databaseUrl === undefined) {
    const asked = auto ? `auto (${count} CPUs)` : text;
    throw new ConfigError(
      `BATON_PROCESSES=${asked} needs PostgreSQL (BATON_DATABASE_URL): the embedded SQLite store has one writer, so it runs as one process; set BATON_PROCESSES=1 or unset it`,
    );
  }
  return count;
}

function archiveAfter(raw: RawEnv): number | undefined {
  const text = raw.BATON_ARCHIVE_AFTER;
  if (text === undefined) return undefined;
  const ms = parseDuration(text);
  if (ms === undefined) {
    throw new ConfigError(
      `BATON_ARCHIVE_AFTER must be a duration such as 30d, 12h, 1h30m or 90s, got '${text}'`,
    );
  }
  return ms;
}

/** Turns raw settings into Options, refusing bad values with a message that names the setting. */
export function compileOptions(raw: RawEnv, cwd = process.cwd(), cpus = availableParallelism()): Options {
  const databaseUrl = raw.BATON_DATABASE_URL;
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('BATON_DATABASE_URL must start with postgres:// or postgresql://');
  }
  const amqpUrl = raw.BATON_AMQP_URL;
  if (amqpUrl !== undefined && !/^amqps?:\/\//.test(amqpUrl)) {
    throw new ConfigError('BATON_AMQP_URL must start with amqp:// or amqps://');
  }
  const natsUrl = raw.BATON_NATS_URL;
  if (natsUrl !== undefined && !/^(nats|tls|wss?):\/\//.test(natsUrl)) {
    throw new ConfigError('BATON_NATS_URL must start with nats://, tls://, ws:// or wss://');
  }
  const host = raw.BATON_HOST ?? defaultOf('BATON_HOST');
  let auth: AuthOptions;
  try {
    auth = compileAuthOptions(raw, host);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  let tracing: TracingOptions;
  try {
    tracing = compileTracingOptions(raw);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  const dataDir = path.resolve(cwd, raw.BATON_DATA_DIR ?? defaultOf('BATON_DATA_DIR'));
  const publicUrl = raw.BATON_PUBLIC_URL?.replace(/\/+$/, '');
  if (publicUrl !== undefined && !/^https?:\/\/[^\s/]+(\/[^\s]*)?$/.test(publicUrl)) {
    throw new ConfigError('BATON_PUBLIC_URL must be an http:// or https:// URL');
  }
  const signingKey = raw.BATON_PAYLOAD_SIGNING_KEY;
  if (signingKey !== undefined && signingKey.length < 16) {
    throw new ConfigError('BATON_PAYLOAD_SIGNING_KEY must be at least 16 characters');
  }
  return Object.freeze({
    port: integer(raw, 'BATON_PORT', 0, 65535),
    host,
    dataDir,
    databaseUrl,
    dbPoolSize: integer(raw, 'BATON_DB_POOL_SIZE', 1, 1000),
    dbConnectTimeoutMs: integer(raw, 'BATON_DB_CONNECT_TIMEOUT_MS', 100, 600_000),
    dbStatementTimeoutMs: integer(raw, 'BATON_DB_STATEMENT_TIMEOUT_MS', 0, 86_400_000),
    dbStartWaitMs: integer(raw, 'BATON_DB_START_WAIT_MS', 0, 86_400_000),
    dbGroupCommit: integer(raw, 'BATON_DB_GROUP_COMMIT', 1, 1000),
    processes: processCount(raw, databaseUrl, cpus),
    sqliteSynchronous: oneOf(raw, 'BATON_SQLITE_SYNCHRONOUS', ['FULL', 'NORMAL'] as const),
    logLevel: oneOf(raw, 'BATON_LOG_LEVEL', LOG_LEVELS),
    highPriorityThreshold: integer(raw, 'BATON_HIGH_PRIORITY_THRESHOLD', 0, 100),
    maxForkBranches: integer(raw, 'BATON_MAX_FORK_BRANCHES', 1, 1_000_000),
    queueRunAgeMs: integer(raw, 'BATON_QUEUE_RUN_AGE_MS', 0, 86_400_000),
    maxBodyBytes: integer(raw, 'BATON_MAX_BODY_BYTES', 1024, 1024 * 1024 * 1024),
    shutdownGraceMs: integer(raw, 'BATON_SHUTDOWN_GRACE_MS', 0, 600_000),
    scriptMemoryMb: integer(raw, 'BATON_SCRIPT_MEMORY_MB', 1, 1024),
    scriptTimeoutMs: integer(raw, 'BATON_SCRIPT_TIMEOUT_MS', 10, 60_000),
    timerIdleMs: integer(raw, 'BATON_TIMER_IDLE_MS', 10, 60_000),
    pollDataFlushMs: integer(raw, 'BATON_POLL_DATA_FLUSH_MS', 10, 60_000),
    secretsKey: secretsKey(raw),
    systemTaskConcurrency: integer(raw, 'BATON_SYSTEM_TASK_CONCURRENCY', 1, 10_000),
    httpMaxResponseBytes: integer(raw, 'BATON_HTTP_MAX_RESPONSE_BYTES', 1, 1024 * 1024 * 1024),
    llmRunTokenBudget: integer(raw, 'BATON_LLM_RUN_TOKEN_BUDGET', 0, Number.MAX_SAFE_INTEGER),
    httpDeny: Object.freeze(egressList(raw, 'BATON_HTTP_DENY') ?? []),
    httpAllow: egressList(raw, 'BATON_HTTP_ALLOW'),
    uiDir: raw.BATON_UI_DIR === undefined ? defaultUiDir() : path.resolve(cwd, raw.BATON_UI_DIR),
    amqpUrl,
    natsUrl,
    natsAckWaitMs: integer(raw, 'BATON_NATS_ACK_WAIT_MS', 1000, 3_600_000),
    eventExecutionRetentionDays: integer(raw, 'BATON_EVENT_RETENTION_DAYS', 1, 3650),
    scheduleExecutionRetentionDays: integer(raw, 'BATON_SCHEDULE_RETENTION_DAYS', 1, 3650),
    eventHandlerRefreshMs: integer(raw, 'BATON_EVENT_REFRESH_MS', 50, 600_000),
    blobs: blobSettings(raw, dataDir),
    payloadInlineMaxBytes: integer(raw, 'BATON_PAYLOAD_INLINE_MAX_BYTES', 1024, 1024 * 1024 * 1024),
    payloadMaxBytes: integer(raw, 'BATON_PAYLOAD_MAX_BYTES', 1024, 4 * 1024 * 1024 * 1024),
    payloadUrlTtlSeconds: integer(raw, 'BATON_PAYLOAD_URL_TTL_SECONDS', 1, 7 * 24 * 3600),
    payloadSigningKey: signingKey,
    publicUrl,
    archiveAfterMs: archiveAfter(raw),
    archiveIntervalMs: integer(raw, 'BATON_ARCHIVE_INTERVAL_MS', 10, 86_400_000),
    archiveBatch: integer(raw, 'BATON_ARCHIVE_BATCH', 1, 1000),
    auth,
    tracing,
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
  out.blobs = options.blobs.kind;
  out.auth = options.auth.mode;
  return out;
}
