import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { chromium, type BrowserContext } from 'playwright-core';

import type * as BatonProcessModule from '../../../server/test/helpers/baton-process.js';
import type * as OidcProviderModule from '../../../server/test/helpers/oidc-provider.js';
import type * as PostgresModule from '../../../server/test/helpers/postgres.js';

/**
 * The real browser for the UI's tests: Debian's Chromium (`apt-get install chromium`, done by
 * .ci/run when missing) driven by playwright-core. Nothing is ever downloaded; a missing
 * binary fails the test with the command that installs it.
 */

export const CHROMIUM = '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // Tests reach only this machine: nothing but 127.0.0.1 and localhost resolves, so a page
  // asking for a web font or the like (the test identity provider's pages do) gets nothing.
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost',
];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** `timezoneId` sets the browser's own zone (what "local time" is on the page). */
export async function launchBrowser(opts: { timezoneId?: string } = {}): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's Chromium with \`apt-get install -y chromium\``);
  }
  // A fresh, empty profile each time: no state leaks between runs.
  const profile = mkdtempSync(path.join(tmpdir(), 'baton-ui-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 800 },
    ...(opts.timezoneId !== undefined && { timezoneId: opts.timezoneId }),
    timeout: 60_000,
  });
  context.setDefaultTimeout(20_000);
  return {
    context,
    close: async () => {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** The repository root, found from this compiled file (packages/ui/dist/node/test/helpers). */
export const repoRoot = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../../../../..');

/**
 * The server's end-to-end helpers, loaded from the server's compiled tests at run time (this
 * package compiles to its own dist, so a relative import would not survive compilation).
 */
export async function batonProcess(): Promise<typeof BatonProcessModule> {
  const file = path.join(repoRoot, 'packages/server/dist/test/helpers/baton-process.js');
  return (await import(pathToFileURL(file).href)) as typeof BatonProcessModule;
}

/** The server tests' OpenID provider (oidc-provider on 127.0.0.1), loaded the same way. */
export async function oidcProvider(): Promise<typeof OidcProviderModule> {
  const file = path.join(repoRoot, 'packages/server/dist/test/helpers/oidc-provider.js');
  return (await import(pathToFileURL(file).href)) as typeof OidcProviderModule;
}

/** The server tests' PostgreSQL helpers (which stores are on, a fresh database), loaded the same way. */
export async function postgresHelpers(): Promise<typeof PostgresModule> {
  const file = path.join(repoRoot, 'packages/server/dist/test/helpers/postgres.js');
  return (await import(pathToFileURL(file).href)) as typeof PostgresModule;
}

export const uiBuilt = (): boolean => existsSync(path.join(repoRoot, 'packages/ui/dist/web/index.html'));
