import { ENV_KEYS, type EnvName, type RawEnv } from './env.js';

/**
 * The role name of each caller group (docs/design/security.md#caller-groups-and-roles), renameable
 * by a setting.
 */
export interface RoleNames {
  readonly metadata: string;
  readonly workflow: string;
  readonly task: string;
  readonly event: string;
  readonly admin: string;
}

/** Validated authentication and HTTP-guard settings (auth/ reads only these). */
export interface AuthOptions {
  /** `off`: every caller is anonymous and may do everything (loopback or BATON_AUTH=none). */
  readonly mode: 'on' | 'off';
  /** Why the mode is what it is, for the start-up log line. */
  readonly reason: string;
  readonly issuer: string | undefined;
  readonly audience: string | undefined;
  readonly jwksUrl: string | undefined;
  /** The web UI's public client at the identity provider, and the scopes it asks for. */
  readonly ui: { readonly clientId: string; readonly scope: string } | undefined;
  readonly rolesClaim: string;
  readonly clockSkewSeconds: number;
  readonly tokenTtlSeconds: number;
  /** Longest `exp - iat` of an accepted token (Baton's and the identity provider's). */
  readonly maxTokenLifetimeSeconds: number;
  readonly roles: RoleNames;
  readonly bootstrap: { readonly keyId: string; readonly keySecret: string } | undefined;
  /** `/metrics` without a token (else it needs the admin role when auth is on). */
  readonly metricsOpen: boolean;
  /** Requests per identity per window; 0 = no limit. */
  readonly rateLimitMax: number;
  readonly rateLimitWindowMs: number;
  /** Origins allowed by CORS; empty = CORS off. */
  readonly corsOrigins: readonly string[];
}

export class AuthConfigError extends Error {
  override name = 'ConfigError';
}

function text(raw: RawEnv, name: EnvName): string | undefined {
  const value = raw[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function withDefault(raw: RawEnv, name: EnvName): string {
  const key = ENV_KEYS.find((k) => k.name === name);
  return text(raw, name) ?? (key && 'default' in key ? key.default : '');
}

function int(raw: RawEnv, name: EnvName, min: number, max: number): number {
  const value = withDefault(raw, name);
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new AuthConfigError(`${name} must be an integer from ${min} to ${max}, got '${value}'`);
  }
  return n;
}

function url(raw: RawEnv, name: EnvName): string | undefined {
  const value = text(raw, name);
  if (value === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new AuthConfigError(`${name} must be an absolute http(s) URL, got '${value}'`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new AuthConfigError(`${name} must be an http(s) URL, got '${value}'`);
  }
  return value;
}

function roleName(raw: RawEnv, name: EnvName): string {
  const value = withDefault(raw, name);
  if (!/^[A-Za-z0-9_.:-]{1,100}$/.test(value) || value.startsWith('worker:')) {
    throw new AuthConfigError(
      `${name} must be 1-100 letters, digits, '_', '.', ':' or '-', not worker:…, got '${value}'`,
    );
  }
  return value;
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

const AUTH_SETTINGS: readonly EnvName[] = [
  'BATON_AUTH_ISSUER',
  'BATON_AUTH_JWKS_URL',
  'BATON_AUTH_BOOTSTRAP_KEY_ID',
];

/**
 * Decides whether authentication is on, refusing the combinations that would leave a node open
 * to the network by accident: beyond loopback, auth is on unless BATON_AUTH=none says otherwise.
 */
export function compileAuthOptions(raw: RawEnv, host: string): AuthOptions {
  const switchValue = text(raw, 'BATON_AUTH')?.toLowerCase();
  if (switchValue !== undefined && switchValue !== 'none' && switchValue !== 'on') {
    throw new AuthConfigError(`BATON_AUTH must be 'none' or 'on', got '${switchValue}'`);
  }
  const issuer = url(raw, 'BATON_AUTH_ISSUER');
  const jwksUrl = url(raw, 'BATON_AUTH_JWKS_URL');
  const audience = text(raw, 'BATON_AUTH_AUDIENCE');
  if ((issuer !== undefined || jwksUrl !== undefined) && audience === undefined) {
    throw new AuthConfigError(
      'BATON_AUTH_AUDIENCE is required with BATON_AUTH_ISSUER: tokens are checked for it',
    );
  }
  if (jwksUrl !== undefined && issuer === undefined) {
    throw new AuthConfigError(
      'BATON_AUTH_JWKS_URL needs BATON_AUTH_ISSUER: tokens are checked for their issuer',
    );
  }
  const uiClientId = text(raw, 'BATON_AUTH_UI_CLIENT_ID');
  if (uiClientId !== undefined && issuer === undefined) {
    throw new AuthConfigError(
      'BATON_AUTH_UI_CLIENT_ID needs BATON_AUTH_ISSUER: it is a client of that provider',
    );
  }
  if (uiClientId !== undefined && !/^[\x21-\x7e]{1,255}$/.test(uiClientId)) {
    throw new AuthConfigError('BATON_AUTH_UI_CLIENT_ID must be 1-255 printable characters without spaces');
  }
  const uiScope = withDefault(raw, 'BATON_AUTH_UI_SCOPE');
  if (!/^[\x21-\x7e]+( [\x21-\x7e]+)*$/.test(uiScope) || uiScope.length > 1000) {
    throw new AuthConfigError(
      `BATON_AUTH_UI_SCOPE must be scopes separated by single spaces, got '${uiScope}'`,
    );
  }
  const keyId = text(raw, 'BATON_AUTH_BOOTSTRAP_KEY_ID');
  const keySecret = text(raw, 'BATON_AUTH_BOOTSTRAP_KEY_SECRET');
  if ((keyId === undefined) !== (keySecret === undefined)) {
    throw new AuthConfigError('BATON_AUTH_BOOTSTRAP_KEY_ID and BATON_AUTH_BOOTSTRAP_KEY_SECRET go together');
  }
  if (keyId !== undefined && !/^[A-Za-z0-9_-]{8,128}$/.test(keyId)) {
    throw new AuthConfigError('BATON_AUTH_BOOTSTRAP_KEY_ID must be 8-128 letters, digits, _ or -');
  }
  if (keySecret !== undefined && (keySecret.length < 16 || keySecret.length > 256)) {
    throw new AuthConfigError('BATON_AUTH_BOOTSTRAP_KEY_SECRET must be 16 to 256 characters');
  }
  const configured = AUTH_SETTINGS.some((name) => text(raw, name) !== undefined);
  let mode: 'on' | 'off';
  let reason: string;
  if (switchValue === 'none') {
    mode = 'off';
    reason = 'BATON_AUTH=none';
  } else if (switchValue === 'on' || configured) {
    mode = 'on';
    reason = switchValue === 'on' ? 'BATON_AUTH=on' : 'auth settings given';
  } else if (isLoopback(host)) {
    mode = 'off';
    reason = 'bound to loopback with no auth settings';
  } else {
    throw new AuthConfigError(
      `Baton is bound to ${host} (beyond loopback) and has no authentication settings, so anyone who reaches it could ` +
        'run and change workflows. Set BATON_AUTH_ISSUER and BATON_AUTH_AUDIENCE (an OpenID provider), or ' +
        'BATON_AUTH_BOOTSTRAP_KEY_ID and BATON_AUTH_BOOTSTRAP_KEY_SECRET (a first admin access key), or bind to ' +
        '127.0.0.1 (BATON_HOST), or set BATON_AUTH=none if a gateway in front checks every caller.',
    );
  }
  const metrics = withDefault(raw, 'BATON_METRICS_AUTH').toLowerCase();
  if (metrics !== 'admin' && metrics !== 'open') {
    throw new AuthConfigError(`BATON_METRICS_AUTH must be 'admin' or 'open', got '${metrics}'`);
  }
  const corsOrigins = (text(raw, 'BATON_CORS_ORIGINS') ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  for (const origin of corsOrigins) {
    if (origin !== '*' && !/^https?:\/\/[^/\s]+$/.test(origin)) {
      throw new AuthConfigError(
        `BATON_CORS_ORIGINS: '${origin}' must be * or an origin such as https://ui.example.com`,
      );
    }
  }
  const roles: RoleNames = {
    metadata: roleName(raw, 'BATON_AUTH_ROLE_METADATA'),
    workflow: roleName(raw, 'BATON_AUTH_ROLE_WORKFLOW'),
    task: roleName(raw, 'BATON_AUTH_ROLE_TASK'),
    event: roleName(raw, 'BATON_AUTH_ROLE_EVENT'),
    admin: roleName(raw, 'BATON_AUTH_ROLE_ADMIN'),
  };
  if (new Set(Object.values(roles)).size !== 5) {
    throw new AuthConfigError('BATON_AUTH_ROLE_* must name five different roles');
  }
  const rolesClaim = withDefault(raw, 'BATON_AUTH_ROLES_CLAIM');
  if (!/^[A-Za-z0-9_:/-]+(\.[A-Za-z0-9_:/-]+)*$/.test(rolesClaim) || rolesClaim.length > 200) {
    throw new AuthConfigError(
      `BATON_AUTH_ROLES_CLAIM must be a claim name or dotted path, got '${rolesClaim}'`,
    );
  }
  const tokenTtlSeconds = int(raw, 'BATON_AUTH_TOKEN_TTL_SECONDS', 60, 86_400);
  const maxTokenLifetimeSeconds = int(raw, 'BATON_AUTH_MAX_TOKEN_LIFETIME_SECONDS', 60, 31_536_000);
  if (tokenTtlSeconds > maxTokenLifetimeSeconds) {
    throw new AuthConfigError(
      `BATON_AUTH_TOKEN_TTL_SECONDS (${tokenTtlSeconds}) must not exceed BATON_AUTH_MAX_TOKEN_LIFETIME_SECONDS (${maxTokenLifetimeSeconds})`,
    );
  }
  return Object.freeze({
    mode,
    reason,
    issuer,
    audience,
    jwksUrl,
    ui: uiClientId !== undefined ? Object.freeze({ clientId: uiClientId, scope: uiScope }) : undefined,
    rolesClaim,
    clockSkewSeconds: int(raw, 'BATON_AUTH_CLOCK_SKEW_SECONDS', 0, 300),
    tokenTtlSeconds,
    maxTokenLifetimeSeconds,
    roles: Object.freeze(roles),
    bootstrap:
      keyId !== undefined && keySecret !== undefined ? Object.freeze({ keyId, keySecret }) : undefined,
    metricsOpen: metrics === 'open',
    rateLimitMax: int(raw, 'BATON_RATE_LIMIT_MAX', 0, 10_000_000),
    rateLimitWindowMs: int(raw, 'BATON_RATE_LIMIT_WINDOW_MS', 100, 3_600_000),
    corsOrigins: Object.freeze(corsOrigins),
  });
}
