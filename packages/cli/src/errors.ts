import { BatonApiError, BatonConnectionError, BatonNotApiError } from '@baton/sdk';

import { EXIT } from './output.js';
import { credentialsGiven, serverUsed, UsageError } from './settings.js';

/** What went wrong: a message for people, the exit code, and (for --json) the facts behind it. */
export interface Explained {
  message: string;
  code: number;
  server?: string;
  status?: number;
  method?: string;
  url?: string;
  validationErrors?: Array<{ path: string; message: string }>;
}

/** A message for people, and the exit code, for anything a command throws. */
export function explain(err: unknown): Explained {
  if (err instanceof UsageError) return { message: err.message, code: EXIT.usage };
  if (err instanceof BatonConnectionError) {
    const used = serverUsed();
    const from = used ? ` (the server from ${used.source})` : '';
    return {
      message: `${err.message}${from}\n  is the server running? Start one with \`baton server\`, or point --server / BATON_URL at it`,
      code: EXIT.error,
      ...(used && { server: used.url }),
    };
  }
  if (err instanceof BatonNotApiError) {
    const used = serverUsed();
    return {
      message: used ? `${err.message} (the server from ${used.source}: ${used.url})` : err.message,
      code: EXIT.error,
      ...(used && { server: used.url }),
      url: err.url,
    };
  }
  if (err instanceof BatonApiError) {
    const lines = [`the server refused ${err.method} ${err.url} (HTTP ${err.status}): ${err.message}`];
    const validationErrors =
      typeof err.body === 'object'
        ? (err.body.validationErrors ?? []).map((v) => ({ path: v.path, message: v.message }))
        : [];
    for (const v of validationErrors) lines.push(`  - ${v.path}: ${v.message}`);
    if (err.status === 401 && err.url.endsWith('/api/token'))
      lines.push('  check BATON_KEY_ID and BATON_KEY_SECRET: they must be an access key of an application');
    else if (err.status === 401 && credentialsGiven())
      lines.push('  the credentials in BATON_TOKEN or BATON_KEY_ID / BATON_KEY_SECRET were not accepted');
    else if (err.status === 401) lines.push('  set BATON_TOKEN, or BATON_KEY_ID and BATON_KEY_SECRET');
    else if (err.status === 403)
      lines.push("  these credentials lack that role: an admin grants it to the key's application");
    else if (err.errorCode === 'ROUTE_NOT_FOUND') {
      // Baton's API is at the root of its address: a path after the port (a proxy's prefix
      // guessed wrong, a UI page's address) makes every route unknown.
      const used = serverUsed();
      const root = used ? pathlessRoot(used.url) : undefined;
      if (used && root !== undefined)
        lines.push(`  the server address from ${used.source} has a path after the port: try ${root}`);
    }
    return {
      message: lines.join('\n'),
      code: EXIT.error,
      status: err.status,
      method: err.method,
      url: err.url,
      ...(validationErrors.length > 0 && { validationErrors }),
    };
  }
  const e = err instanceof Error ? err : new Error(String(err));
  return { message: e.message, code: EXIT.error };
}

/** The address without its path, when it has one (`http://h:8080/x` → `http://h:8080`). */
function pathlessRoot(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.pathname.replace(/\/+$/, '') === '' ? undefined : parsed.origin;
  } catch {
    return undefined;
  }
}
