#!/usr/bin/env node
// The `baton` bin. A committed file (not the build output) so that `npm install` links it even
// before the TypeScript is built, and it keeps its executable bit in git.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/src/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(
    'baton: the CLI is not built yet: run `npm run build` (or `npx tsc -b`) in the repository\n',
  );
  process.exit(1);
}
await import(entry.href);
