import type { CallSecrets } from '../secrets/call-secrets.js';
import type { ServiceRecord } from './service-record.js';

/**
 * The headers a registered service is called with: its plain headers and its credentials,
 * whose values come from secrets at call time only. Derived values (a `Basic …` header) are
 * handed to the call's masker, so an echo of them is masked too.
 */
export async function serviceHeaders(
  record: ServiceRecord,
  secrets: CallSecrets,
): Promise<Record<string, string>> {
  const headers: Record<string, string> = { ...record.headers };
  const auth = record.auth;
  if (!auth) return headers;
  const names = [auth.secret, ...(auth.type === 'basic' && auth.usernameSecret ? [auth.usernameSecret] : [])];
  const values = await secrets.values(names);
  const secret = values.get(auth.secret) ?? '';
  switch (auth.type) {
    case 'bearer':
      headers.authorization = `Bearer ${secret}`;
      break;
    case 'apiKey':
      headers[auth.header.toLowerCase()] = secret;
      break;
    case 'basic': {
      const user = auth.usernameSecret ? (values.get(auth.usernameSecret) ?? '') : (auth.username ?? '');
      const encoded = Buffer.from(`${user}:${secret}`, 'utf8').toString('base64');
      secrets.hide(encoded);
      headers.authorization = `Basic ${encoded}`;
      break;
    }
  }
  return headers;
}
