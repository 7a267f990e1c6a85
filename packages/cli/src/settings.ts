import { BatonClient, type Credentials } from '@baton/sdk';

/** The flags every command takes. */
export interface GlobalOptions {
  server?: string;
  json?: boolean;
}

export const DEFAULT_URL = 'http://127.0.0.1:8080';

/**
 * Where the server is and who we are: `--server`, else BATON_URL, else the embedded default's
 * address; BATON_TOKEN (a bearer token) or BATON_KEY_ID + BATON_KEY_SECRET (an application key
 * exchanged at POST /api/token). The only place the CLI reads the environment.
 */
export function clientFrom(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env): BatonClient {
  const { url: baseUrl } = serverFrom(options, env);
  let credentials: Credentials | undefined;
  if (env.BATON_TOKEN) credentials = { token: env.BATON_TOKEN };
  else if (env.BATON_KEY_ID || env.BATON_KEY_SECRET) {
    if (!env.BATON_KEY_ID || !env.BATON_KEY_SECRET) {
      throw new UsageError('BATON_KEY_ID and BATON_KEY_SECRET go together: set both or neither');
    }
    credentials = { keyId: env.BATON_KEY_ID, keySecret: env.BATON_KEY_SECRET };
  }
  return new BatonClient({ baseUrl, ...(credentials && { credentials }) });
}

/** Where the server address came from, to say on a connection error which one was tried. */
export type ServerSource = '--server' | 'BATON_URL' | 'the default';

let lastServer: { url: string; source: ServerSource } | undefined;

/** The server the command talked to (undefined before it made a client). */
export function serverUsed(): { url: string; source: ServerSource } | undefined {
  return lastServer;
}

/**
 * The server's base URL: `--server`, else BATON_URL, else the default. Conductor's clients take
 * the API root (`http://host:8080/api`); Baton's paths already start with /api, so a trailing
 * `/api` is dropped rather than doubled into `/api/api/...`.
 */
export function serverFrom(
  options: GlobalOptions,
  env: NodeJS.ProcessEnv = process.env,
): { url: string; source: ServerSource } {
  const source: ServerSource =
    options.server !== undefined ? '--server' : env.BATON_URL ? 'BATON_URL' : 'the default';
  const given = options.server ?? (env.BATON_URL || DEFAULT_URL);
  if (!/^https?:\/\//.test(given))
    throw new UsageError(`${source} must start with http:// or https://, got '${given}'`);
  const url = given.replace(/\/+$/, '').replace(/\/api$/, '');
  lastServer = { url, source };
  return lastServer;
}

/** Whether the environment gives credentials (to say what to do about a 401). */
export function credentialsGiven(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.BATON_TOKEN || env.BATON_KEY_ID || env.BATON_KEY_SECRET);
}

/** A mistake in how the command was called (exit code 2). */
export class UsageError extends Error {
  override name = 'UsageError';
}
