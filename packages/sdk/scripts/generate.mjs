#!/usr/bin/env node
// Regenerates src/generated/openapi.ts, the SDK's typed view of the whole HTTP API, from the
// OpenAPI document the server itself publishes at /api/openapi.json. The server is built from
// this repository (`tsc -b`) and booted in-process on a throwaway SQLite directory; nothing
// listens on a port. `--check` writes nothing and exits 1 when the checked-in file is stale.
//
//   npm run generate -w packages/sdk            # rewrite the file
//   npm run check-generated -w packages/sdk     # CI: fail when it is out of date
//   node scripts/generate.mjs --spec file.json  # from a dumped document instead of the server
//   node scripts/generate.mjs --dump            # print the server's document
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import openapiTS, { astToString } from 'openapi-typescript';

const sdkRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = path.resolve(sdkRoot, '../..');
const target = path.join(sdkRoot, 'src/generated/openapi.ts');
const serverDist = path.join(repoRoot, 'packages/server/dist/src');

const HEADER = `/**
 * The Baton HTTP API as TypeScript types, generated from GET /api/openapi.json by
 * packages/sdk/scripts/generate.mjs. Do not edit: run \`npm run generate -w packages/sdk\`.
 */
/* eslint-disable */
`;

function argValue(name) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** Boots the server's app in-process (no listening socket) and asks it for its document. */
async function specFromServer() {
  if (!existsSync(path.join(serverDist, 'server.js'))) {
    throw new Error(`the server is not built (${serverDist}): run \`npx tsc -b\` first`);
  }
  const { createServer } = await import(pathToFileURL(path.join(serverDist, 'server.js')).href);
  const { compileOptions } = await import(pathToFileURL(path.join(serverDist, 'config/options.js')).href);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'baton-openapi-'));
  const options = compileOptions({ BATON_DATA_DIR: dataDir, BATON_LOG_LEVEL: 'silent', BATON_PORT: '0' });
  const server = await createServer({ options, timerLoop: false });
  try {
    const res = await server.app.inject({ method: 'GET', url: '/api/openapi.json' });
    if (res.statusCode !== 200) throw new Error(`GET /api/openapi.json answered ${res.statusCode}`);
    return JSON.parse(res.body);
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Generated source for a document; stable for the same document (no dates, no paths). */
export async function generate(spec) {
  const ast = await openapiTS(spec, { alphabetize: true, emptyObjectsUnknown: true });
  return HEADER + astToString(ast);
}

async function main() {
  const specFile = argValue('--spec');
  const spec = specFile ? JSON.parse(readFileSync(specFile, 'utf8')) : await specFromServer();
  if (process.argv.includes('--dump')) {
    process.stdout.write(`${JSON.stringify(spec, null, 2)}\n`);
    return;
  }
  const source = await generate(spec);
  if (process.argv.includes('--check')) {
    const current = existsSync(target) ? readFileSync(target, 'utf8') : '';
    if (current !== source) {
      process.stderr.write(
        `packages/sdk/src/generated/openapi.ts is out of date with the server's /api/openapi.json: ` +
          `run npm run generate -w packages/sdk (it builds the server first) and commit the result\n`,
      );
      process.exit(1);
    }
    process.stdout.write('packages/sdk/src/generated/openapi.ts is current\n');
    return;
  }
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(target, source);
  process.stdout.write(`wrote ${path.relative(repoRoot, target)}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    process.stderr.write(`generate: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
