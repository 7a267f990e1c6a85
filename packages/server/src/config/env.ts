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
    name: 'BATON_HTTP_DENY',
    description:
      'Comma list of host names and CIDRs HTTP tasks may not reach (checked after DNS, on every redirect)',
    default: '169.254.0.0/16,fe80::/10',
  },
  {
    name: 'BATON_HTTP_ALLOW',
    description:
      'Comma list of host names and CIDRs HTTP tasks may reach (unset = any not denied; allow wins over deny)',
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
