import type { FastifyInstance } from 'fastify';

import { fail } from '../errors.js';

/**
 * Requests meant for another host are refused before routing: an absolute-form target
 * (`GET http://other.host/api/…`, a proxy's request) or an asterisk target, and a Host header
 * that is no host name or address (spaces, paths, user info, several hosts). Baton is an origin
 * server; answering those as if they were for itself lets a misrouted or forged request through.
 */
const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}))*\.?|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

export function isOriginFormTarget(url: string): boolean {
  return url.startsWith('/') && !url.startsWith('//');
}

export function isSaneHost(host: string | undefined): boolean {
  // HTTP/1.0 clients may omit Host; Node refuses a missing Host on HTTP/1.1 itself.
  return host === undefined || (host.length <= 260 && HOST.test(host));
}

export function installRequestTargetGuard(app: FastifyInstance): void {
  app.addHook('onRequest', (req, _reply, done) => {
    const url = req.raw.url ?? '';
    if (!isOriginFormTarget(url)) {
      done(
        fail('REQUEST_TARGET_INVALID', {}, [
          { path: 'target', message: 'must start with a single /', invalidValue: url.slice(0, 200) },
        ]),
      );
      return;
    }
    const host = req.headers.host;
    if (!isSaneHost(host)) {
      done(
        fail('HOST_HEADER_INVALID', {}, [
          { path: 'headers.host', message: 'is no host', invalidValue: (host ?? '').slice(0, 200) },
        ]),
      );
      return;
    }
    done();
  });
}
