/**
 * The only reader of process.env. Every setting Baton understands is listed here, with its
 * meaning and whether it is secret (secret values never appear in /api/admin/config or logs).
 */
export interface EnvKey {
  readonly name: string;
  readonly description: string;
  readonly default?: string;
  readonly secret?: boolean;
}

export const ENV_KEYS = [
  { name: 'BATON_PORT', description: 'HTTP port', default: '8080' },
  { name: 'BATON_HOST', description: 'Address to bind', default: '127.0.0.1' },
  { name: 'BATON_DATA_DIR', description: 'Directory for the embedded SQLite database', default: './data' },
  {
    name: 'BATON_DATABASE_URL',
    description: 'postgres://… to run on PostgreSQL (migrated on start); unset = embedded SQLite',
    secret: true,
  },
  { name: 'BATON_DB_POOL_SIZE', description: 'PostgreSQL connections per node', default: '10' },
  {
    name: 'BATON_DB_CONNECT_TIMEOUT_MS',
    description:
      'PostgreSQL: longest wait for a connection (new or from the pool); past it a request answers 503 with Retry-After',
    default: '5000',
  },
  {
    name: 'BATON_DB_STATEMENT_TIMEOUT_MS',
    description:
      'PostgreSQL: longest statement (statement_timeout; the node stops waiting for an answer 1 s later); 0 = no limit',
    default: '30000',
  },
  {
    name: 'BATON_DB_START_WAIT_MS',
    description:
      'PostgreSQL: how long a starting node keeps trying while the database is away (migrations, first reads) before it exits; 0 = exit at once',
    default: '60000',
  },
  {
    name: 'BATON_DB_GROUP_COMMIT',
    description:
      'PostgreSQL: most concurrent worker results and polls applied in one transaction with one commit (group commit); 1 = each alone',
    default: '64',
  },
  {
    name: 'BATON_PROCESSES',
    description:
      'PostgreSQL: node processes this host runs, sharing the port, each a node of the cluster; auto = one per CPU (SQLite runs one)',
    default: '1',
  },
  {
    name: 'BATON_SQLITE_SYNCHRONOUS',
    description: 'SQLite durability: FULL (survives power loss) or NORMAL (survives a process crash)',
    default: 'FULL',
  },
  {
    name: 'BATON_LOG_LEVEL',
    description: 'fatal, error, warn, info, debug, trace or silent',
    default: 'info',
  },
  {
    name: 'BATON_HIGH_PRIORITY_THRESHOLD',
    description: 'Runs with priority at or above this use the {type}-high queues',
    default: '50',
  },
  { name: 'BATON_MAX_BODY_BYTES', description: 'Largest request body accepted', default: '5242880' },
  { name: 'BATON_SHUTDOWN_GRACE_MS', description: 'How long a graceful stop may take', default: '10000' },
  {
    name: 'BATON_SCRIPT_MEMORY_MB',
    description: 'Memory cap of one script evaluation (INLINE, LAMBDA, SWITCH, DO_WHILE)',
    default: '32',
  },
  {
    name: 'BATON_SCRIPT_TIMEOUT_MS',
    description: 'Time cap of one script or jq evaluation',
    default: '1000',
  },
  {
    name: 'BATON_TIMER_IDLE_MS',
    description: 'Longest sleep of the timer loop between checks (sees timers armed by other nodes)',
    default: '1000',
  },
  {
    name: 'BATON_POLL_DATA_FLUSH_MS',
    description: 'How often worker polls are written to poll_data (they are kept in memory in between)',
    default: '1000',
  },
  {
    name: 'BATON_SECRETS_KEY',
    description:
      'Key that seals stored secrets (AES-256-GCM): 32 random bytes as base64 or 64 hex digits (openssl rand -base64 32); unset = no secrets',
    secret: true,
  },
  {
    name: 'BATON_MAX_FORK_BRANCHES',
    description: 'Most branches one dynamic fork (FORK_JOIN_DYNAMIC) may make; a wider one fails its run',
    default: '10000',
  },
  {
    name: 'BATON_QUEUE_RUN_AGE_MS',
    description:
      "How far ahead of later-queued tasks a task of a run under way may go in its queue (its run's age, up to this); 0 = strictly in queue order",
    default: '60000',
  },
  {
    name: 'BATON_SYSTEM_TASK_CONCURRENCY',
    description: 'Calls the engine makes itself (HTTP, CALL_TOOL, …) in flight at once on this node',
    default: '32',
  },
  {
    name: 'BATON_HTTP_MAX_RESPONSE_BYTES',
    description: 'Largest response body an HTTP task reads; a larger one fails the task',
    default: '1048576',
  },
  {
    name: 'BATON_LLM_RUN_TOKEN_BUDGET',
    description:
      'Tokens the LLM tasks of one run may use in all; a call past it fails its task (0 = no budget; a task input runTokenBudget overrides it)',
    default: '0',
  },
  {
    name: 'BATON_HTTP_DENY',
    description:
      'Comma list of host names and CIDRs HTTP tasks may not reach (checked after DNS, on every redirect)',
    default: '169.254.0.0/16,fe80::/10,64:ff9b::a9fe:0/112,::ffff:a9fe:0/112,::a9fe:0/112',
  },
  {
    name: 'BATON_HTTP_ALLOW',
    description:
      'Comma list of host names and CIDRs HTTP tasks may reach (unset = any not denied; allow wins over deny)',
  },
  {
    name: 'BATON_UI_DIR',
    description:
      'Directory of the built web UI served at /; unset = packages/ui/dist/web next to the server package',
  },
  {
    name: 'BATON_AMQP_URL',
    description: 'amqp://… of the RabbitMQ broker for amqp: event handlers and sinks; unset = none',
    secret: true,
  },
  {
    name: 'BATON_NATS_URL',
    description: 'nats://… of the NATS (JetStream) server for nats: event handlers and sinks; unset = none',
    secret: true,
  },
  {
    name: 'BATON_NATS_ACK_WAIT_MS',
    description: 'How long NATS waits for a consumer to acknowledge before it redelivers (a node that died)',
    default: '30000',
  },
  {
    name: 'BATON_EVENT_RETENTION_DAYS',
    description: 'Event executions (and the inbox entries of their messages) older than this are pruned',
    default: '7',
  },
  {
    name: 'BATON_SCHEDULE_RETENTION_DAYS',
    description:
      "Schedule executions (one per fired slot) older than this are pruned; each schedule's latest is kept",
    default: '30',
  },
  {
    name: 'BATON_EVENT_REFRESH_MS',
    description: 'How often a node checks for event handler changes made on any node',
    default: '1000',
  },
  {
    name: 'BATON_BLOB_URL',
    description: 'Blob storage: s3://bucket/prefix for an S3-compatible bucket; unset = <data dir>/blobs',
  },
  { name: 'BATON_S3_ENDPOINT', description: 'URL of an S3-compatible server (unset = AWS)' },
  { name: 'BATON_S3_REGION', description: 'S3 region', default: 'us-east-1' },
  {
    name: 'BATON_S3_FORCE_PATH_STYLE',
    description: 'true: path-style S3 URLs (endpoint/bucket/key), which most S3-compatible servers need',
    default: 'false',
  },
  { name: 'BATON_S3_ACCESS_KEY_ID', description: 'S3 access key id (unset = the SDK default chain)' },
  { name: 'BATON_S3_SECRET_ACCESS_KEY', description: 'S3 secret access key', secret: true },
  {
    name: 'BATON_PAYLOAD_INLINE_MAX_BYTES',
    description:
      'Largest inline task output, task input handed out, or start input; larger ones go through external storage',
    default: '3145728',
  },
  {
    name: 'BATON_PAYLOAD_MAX_BYTES',
    description:
      'Largest payload taken through external storage: uploaded to a Baton-served (filesystem) URL, or read from blob storage as a result output, start input or document',
    default: '67108864',
  },
  {
    name: 'BATON_PAYLOAD_URL_TTL_SECONDS',
    description: 'How long a signed payload upload or download URL is valid',
    default: '300',
  },
  {
    name: 'BATON_PAYLOAD_SIGNING_KEY',
    description: 'HMAC key of Baton-served payload URLs (unset = a key kept in <data dir>/blobs-signing.key)',
    secret: true,
  },
  {
    name: 'BATON_PUBLIC_URL',
    description:
      "Base URL workers reach Baton at, for Baton-served payload URLs (unset = the request's host)",
  },
  {
    name: 'BATON_ARCHIVE_AFTER',
    description: 'Move runs that ended this long ago to blob storage (e.g. 30d, 12h, 90s); unset = never',
  },
  {
    name: 'BATON_ARCHIVE_INTERVAL_MS',
    description: 'How often the archiver looks for runs to move when it found none',
    default: '60000',
  },
  { name: 'BATON_ARCHIVE_BATCH', description: 'Runs the archiver claims at a time', default: '50' },
  {
    name: 'BATON_AUTH',
    description:
      'none: no authentication (explicitly off); on: required. Unset: on when any BATON_AUTH_* setting is given, off when bound to loopback, else the node refuses to start',
  },
  { name: 'BATON_AUTH_ISSUER', description: 'OpenID issuer URL; its discovery document names the JWKS' },
  { name: 'BATON_AUTH_AUDIENCE', description: 'Audience (aud) identity-provider tokens must carry' },
  { name: 'BATON_AUTH_JWKS_URL', description: "The issuer's JWKS URL, instead of discovery" },
  {
    name: 'BATON_AUTH_UI_CLIENT_ID',
    description:
      "The web UI's client id at the identity provider (a public client, authorization code with PKCE); unset: the UI signs in with application keys only",
  },
  {
    name: 'BATON_AUTH_UI_SCOPE',
    description: 'Scopes the web UI asks the identity provider for (a token for Baton must come back)',
    default: 'openid',
  },
  {
    name: 'BATON_AUTH_ROLES_CLAIM',
    description: 'Claim holding the roles; a dotted path reaches nested claims (realm_access.roles)',
    default: 'roles',
  },
  {
    name: 'BATON_AUTH_CLOCK_SKEW_SECONDS',
    description: 'Clock skew tolerated on exp/nbf/iat',
    default: '30',
  },
  {
    name: 'BATON_AUTH_TOKEN_TTL_SECONDS',
    description: 'Lifetime of the tokens POST /api/token answers for application keys',
    default: '3600',
  },
  {
    name: 'BATON_AUTH_MAX_TOKEN_LIFETIME_SECONDS',
    description:
      "Longest lifetime (exp - iat) of a token Baton accepts, its own and the identity provider's; a longer one is refused",
    default: '86400',
  },
  { name: 'BATON_AUTH_ROLE_METADATA', description: 'Role name of the metadata group', default: 'metadata' },
  { name: 'BATON_AUTH_ROLE_WORKFLOW', description: 'Role name of the workflow group', default: 'workflow' },
  { name: 'BATON_AUTH_ROLE_TASK', description: 'Role name of the task group', default: 'task' },
  {
    name: 'BATON_AUTH_ROLE_EVENT',
    description: 'Role name of the event group (event handlers, schedules)',
    default: 'event',
  },
  {
    name: 'BATON_AUTH_ROLE_ADMIN',
    description: 'Role name of the admin group (may do everything)',
    default: 'admin',
  },
  {
    name: 'BATON_AUTH_BOOTSTRAP_KEY_ID',
    description: 'Access key id of the first admin application, made (or its secret reset) at start',
  },
  {
    name: 'BATON_AUTH_BOOTSTRAP_KEY_SECRET',
    description: 'Secret of that access key (at least 16 characters)',
    secret: true,
  },
  {
    name: 'BATON_METRICS_AUTH',
    description: 'admin: /metrics needs the admin role when auth is on; open: /metrics needs no token',
    default: 'admin',
  },
  {
    name: 'BATON_RATE_LIMIT_MAX',
    description: 'Requests per identity (or address, without a token) per window; 0 = no limit',
    default: '0',
  },
  { name: 'BATON_RATE_LIMIT_WINDOW_MS', description: 'Window of BATON_RATE_LIMIT_MAX', default: '60000' },
  {
    name: 'BATON_CORS_ORIGINS',
    description: 'Comma-separated origins allowed by CORS (* for any); unset = CORS off',
  },
  {
    name: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    description:
      'Tracing: base URL of an OTLP/HTTP receiver (traces go to <url>/v1/traces); unset with the two below = tracing off',
  },
  {
    name: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    description: 'Tracing: the full OTLP/HTTP traces URL (wins over OTEL_EXPORTER_OTLP_ENDPOINT)',
  },
  {
    name: 'OTEL_EXPORTER_OTLP_HEADERS',
    description: 'Tracing: headers sent to the receiver, as key=value,key2=value2',
    secret: true,
  },
  {
    name: 'OTEL_TRACES_EXPORTER',
    description:
      'Tracing: otlp turns it on (to http://localhost:4318 unless an endpoint is set), none turns it off',
  },
  { name: 'OTEL_SERVICE_NAME', description: 'Tracing: the service.name of the spans', default: 'baton' },
  {
    name: 'OTEL_TRACES_SAMPLER',
    description:
      'Tracing: always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or parentbased_traceidratio; a run keeps its decision for all its tasks',
    default: 'parentbased_always_on',
  },
  {
    name: 'OTEL_TRACES_SAMPLER_ARG',
    description: 'Tracing: the ratio of the *traceidratio samplers',
    default: '1',
  },
  {
    name: 'BATON_TRACE_SLOW_TX_MS',
    description:
      'Tracing: store transactions at least this long become spans of the request or loop that ran them',
    default: '50',
  },
  {
    name: 'BATON_TRACE_URL_TEMPLATE',
    description: "Tracing: a trace viewer's URL with {traceId}; the UI's run page links to the run's trace",
  },
] as const satisfies readonly EnvKey[];

export type EnvName = (typeof ENV_KEYS)[number]['name'];
export type RawEnv = Partial<Record<EnvName, string>>;

export function readEnv(env: NodeJS.ProcessEnv = process.env): RawEnv {
  const raw: RawEnv = {};
  for (const key of ENV_KEYS) {
    const value = env[key.name];
    if (value !== undefined && value !== '') raw[key.name] = value;
  }
  return raw;
}

/**
 * Set by the primary of a `BATON_PROCESSES` group for each process it forks: which of the N it
 * is (1…N; a replacement keeps the index of the process it replaces). Not a setting.
 */
const PROCESS_INDEX_VARIABLE = 'BATON_PROCESS_INDEX';

/** This process's index in its `BATON_PROCESSES` group, or undefined when it runs alone. */
export function processIndex(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const value = Number(env[PROCESS_INDEX_VARIABLE]);
  return Number.isInteger(value) && value >= 1 ? value : undefined;
}

/** The environment the primary gives the process it forks as number `index`. */
export function processIndexEnv(index: number): Record<string, string> {
  return { [PROCESS_INDEX_VARIABLE]: String(index) };
}

/**
 * BATON_* variables that are not server settings but are read by others: the `baton` command
 * line's own (where the server is, who is calling), and the test, screenshot and benchmark
 * tooling's. A server started from the same shell sees them; they are not mistakes.
 */
/** The `baton` command line's own settings: where the server is, who is calling. */
const CLI_SETTINGS = ['BATON_URL', 'BATON_TOKEN', 'BATON_KEY_ID', 'BATON_KEY_SECRET'];
const OTHER_READERS = new Set([
  ...CLI_SETTINGS,
  'BATON_UPDATE_SCREENSHOTS',
  'BATON_PG_STATS_FILE',
  'BATON_SQLITE_STATS_FILE',
  'BATON_TIMELINE_FILE',
  'BATON_PG_LEGACY',
  PROCESS_INDEX_VARIABLE,
]);
/** Prefixes of tooling variables (`BATON_TEST_DATABASE_URL`, `BATON_TEST_STORES`, …). */
const OTHER_PREFIXES = ['BATON_TEST_', 'BATON_BENCH_'];

/** Edit distance of two names (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The known setting `name` most likely meant, when one is close enough to be a typo. */
export function nearestSetting(name: string): string | undefined {
  const squash = (n: string) => n.replace(/_/g, '').toUpperCase();
  let best: { name: string; d: number } | undefined;
  // The CLI's settings too: BATON_URLL is as likely a typo as BATON_PROT.
  for (const known of [...ENV_KEYS.map((k) => k.name), ...CLI_SETTINGS]) {
    // BATON_LOGLEVEL, baton_log_level: the same letters are the same setting.
    const d = squash(known) === squash(name) ? 0 : distance(known, name.toUpperCase());
    if (best === undefined || d < best.d) best = { name: known, d };
  }
  return best !== undefined && best.d <= Math.max(2, Math.floor(name.length / 6)) ? best.name : undefined;
}

/**
 * BATON_* variables in the environment that no part of Baton reads (a typo, a retired name), each
 * with the nearest known setting when there is one. Their values are never looked at.
 */
export function unknownSettings(
  env: NodeJS.ProcessEnv = process.env,
): Array<{ name: string; suggestion?: string }> {
  const known = new Set<string>(ENV_KEYS.map((k) => k.name));
  const out: Array<{ name: string; suggestion?: string }> = [];
  for (const name of Object.keys(env).sort()) {
    if (!/^BATON_/i.test(name) || known.has(name) || OTHER_READERS.has(name)) continue;
    if (OTHER_PREFIXES.some((p) => name.startsWith(p))) continue;
    const suggestion = nearestSetting(name);
    out.push({ name, ...(suggestion !== undefined && { suggestion }) });
  }
  return out;
}
