// Cost of one CALL_TOOL through the MCP handler (the executor's port), against the SDK's own
// McpServer over Streamable HTTP on 127.0.0.1, with its bearer token from the secret store:
// calls on the pooled session versus a new session per call (what reuse saves).
// Run after `npx tsc -b`: node bench/tool-calls.mjs [calls=300]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Agent, fetch as undiciFetch } from 'undici';

import { systemClock } from '../packages/server/dist/src/clock.js';
import { McpSessions } from '../packages/server/dist/src/integrations/mcp/mcp-sessions.js';
import { McpToolHandler } from '../packages/server/dist/src/integrations/mcp/mcp-tool-handler.js';
import { RegistryService } from '../packages/server/dist/src/integrations/registry/registry-service.js';
import { SecretService } from '../packages/server/dist/src/integrations/secrets/secret-service.js';
import { openSqliteStore } from '../packages/server/dist/src/store-sqlite/sqlite-store.js';
import { startMcpServer } from '../packages/server/dist/test/helpers/integration-servers.js';

const calls = Number(process.argv[2] ?? 300);
const dir = mkdtempSync(path.join(tmpdir(), 'baton-tool-bench-'));
const store = openSqliteStore({ file: path.join(dir, 'baton.db'), synchronous: 'NORMAL' });
await store.migrate();
const secrets = new SecretService(store, systemClock, Buffer.alloc(32, 1));
const registry = new RegistryService(store, systemClock);
const mcp = await startMcpServer();
await secrets.put('TOKEN', 'bench-token');
await registry.put({ name: 'tools', kind: 'mcp', url: mcp.url, auth: { type: 'bearer', secret: 'TOKEN' } });
const agent = new Agent();
const ctx = {
  signal: new AbortController().signal,
  fetch: (input, init) => undiciFetch(input, { ...init, dispatcher: agent }),
  dispatcher: agent,
  resolveSecrets: secrets.resolveValue,
  log: () => {},
  now: () => Date.now(),
};
let seq = 0;
const call = () => ({
  taskId: `t${++seq}`,
  workflowId: 'w',
  taskType: 'CALL_TOOL',
  declaredType: 'CALL_TOOL',
  referenceTaskName: 'r',
  workflowTask: { name: 'r', taskReferenceName: 'r', type: 'CALL_TOOL' },
  input: { service: 'tools', tool: 'echo', arguments: { text: 'hello' } },
  attempt: 1,
  previousOutput: {},
});

async function measure(label, fresh) {
  const times = [];
  let sessions = new McpSessions();
  for (let i = 0; i < calls; i++) {
    if (fresh) {
      await sessions.close();
      sessions = new McpSessions();
    }
    const handler = new McpToolHandler(registry, sessions);
    const start = process.hrtime.bigint();
    // Each call has its own signal, as the executor gives it.
    const out = await handler.call(call(), { ...ctx, signal: new AbortController().signal });
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (out.status !== 'COMPLETED') throw new Error(JSON.stringify(out));
  }
  await sessions.close();
  times.sort((a, b) => a - b);
  const p = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(2);
  console.log(`${label}: ${calls} calls, p50 ${p(0.5)} ms, p95 ${p(0.95)} ms`);
}

await measure('reused session', false);
await measure('new session per call', true);
await mcp.close();
await agent.close();
await store.close();
rmSync(dir, { recursive: true, force: true });
