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
  const baseUrl = options.server ?? env.BATON_URL ?? DEFAULT_URL;
  if (!/^https?:\/\//.test(baseUrl))
    throw new UsageError(`--server / BATON_URL must start with http:// or https://, got '${baseUrl}'`);
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

/** Whether the environment gives credentials (to say what to do about a 401). */
export function credentialsGiven(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.BATON_TOKEN || env.BATON_KEY_ID || env.BATON_KEY_SECRET);
}

/** A mistake in how the command was called (exit code 2). */
export class UsageError extends Error {
  override name = 'UsageError';
}
