// What authentication costs per request: the same cheap request (GET /api/tasks/queue/all)
// through the real routes (inject, no socket) with auth off, then with a Baton token for an
// application key (EdDSA signature check, roles read from a 5-second cache), and a token
// exchange (POST /api/token: one scrypt check and one signature). SQLite store in a temp dir.
// Run after `npx tsc -b`: node bench/auth-overhead.mjs [requests]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { compileOptions } from '../packages/server/dist/src/config/options.js';
import { createServer } from '../packages/server/dist/src/server.js';

const N = Number(process.argv[2] ?? 5000);
const KEY = { keyId: 'bench-admin-key', keySecret: 'bench-admin-secret-0123456789' };

async function server(env) {
  const dir = mkdtempSync(path.join(tmpdir(), 'baton-auth-bench-'));
  const s = await createServer({
    options: compileOptions({
      BATON_DATA_DIR: dir,
      BATON_LOG_LEVEL: 'silent',
      BATON_SQLITE_SYNCHRONOUS: 'NORMAL',
      ...env,
    }),
    timerLoop: false,
  });
  await s.app.ready();
  return { s, close: async () => (await s.stop(), rmSync(dir, { recursive: true, force: true })) };
}

async function perRequest(app, headers, n) {
  for (let i = 0; i < 200; i++) await app.inject({ url: '/api/tasks/queue/all', headers }); // warm-up
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const res = await app.inject({ url: '/api/tasks/queue/all', headers });
    if (res.statusCode !== 200) throw new Error(`answered ${res.statusCode}: ${res.body}`);
  }
  return Number(process.hrtime.bigint() - start) / 1e3 / n;
}

const off = await server({});
const offUs = await perRequest(off.s.app, {}, N);
await off.close();

const on = await server({
  BATON_AUTH_BOOTSTRAP_KEY_ID: KEY.keyId,
  BATON_AUTH_BOOTSTRAP_KEY_SECRET: KEY.keySecret,
});
const exchanges = 20;
const t0 = process.hrtime.bigint();
let token = '';
for (let i = 0; i < exchanges; i++) {
  const res = await on.s.app.inject({ method: 'POST', url: '/api/token', payload: KEY });
  token = JSON.parse(res.body).token;
}
const exchangeMs = Number(process.hrtime.bigint() - t0) / 1e6 / exchanges;
const onUs = await perRequest(on.s.app, { 'x-authorization': token }, N);
await on.close();

console.log(`requests per pass: ${N}`);
console.log(`auth off:                 ${offUs.toFixed(1)} µs per request`);
console.log(`application-key token:    ${onUs.toFixed(1)} µs per request (+${(onUs - offUs).toFixed(1)} µs)`);
console.log(`token exchange (scrypt):  ${exchangeMs.toFixed(1)} ms each`);
