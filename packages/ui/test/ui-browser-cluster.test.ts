import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type { Page } from 'playwright-core';

import type { BatonProcess } from '../../server/test/helpers/baton-process.js';
import type { TestDatabase } from '../../server/test/helpers/postgres.js';
import { batonProcess, launchBrowser, postgresHelpers, uiBuilt, type Browser } from './helpers/browser.js';
import {
  apiClient,
  ORDER_BOXES_AT_APPROVAL,
  orderBoxesAtApproval,
  registerDefinitions,
  retryRun,
  searchByCorrelation,
  submitTaskOutput,
} from './helpers/fixtures.js';
import { startRoundRobinProxy, type RoundRobinProxy } from './helpers/round-robin-proxy.js';

/**
 * The web UI as it is run in production: two Baton nodes on one PostgreSQL database behind one
 * URL, each request going to the other node than the one before. The page's reads, its polling
 * for live updates and its actions are all split over both nodes, so anything one node keeps to
 * itself (a cache, a session, a run held in memory) shows up here as a stale or wrong page.
 */

const postgres = await postgresHelpers();

// Registered only when the PostgreSQL suites run, like the server's PostgreSQL-only e2e tests.
if (postgres.enabledStores().includes('postgres'))
  describe('web UI in Chromium on two PostgreSQL nodes behind one URL', () => {
    let helpers: Awaited<ReturnType<typeof batonProcess>>;
    let db: TestDatabase;
    let nodes: BatonProcess[] = [];
    let proxy: RoundRobinProxy;
    let browser: Browser;
    let page: Page;

    const client = apiClient(
      () => helpers,
      () => proxy.url,
    );
    const { api, get, start, work, runStatus } = client;

    before(async () => {
      assert.ok(uiBuilt(), 'the UI is not built: run `npm run build` first (npm test does)');
      helpers = await batonProcess();
      db = await postgres.createTestDatabase('baton_ui_cluster');
      nodes = await Promise.all(
        ['ui-node-a', 'ui-node-b'].map((name) => helpers.startBaton({ databaseUrl: db.url, name })),
      );
      proxy = await startRoundRobinProxy(nodes.map((n) => n.url));
      await registerDefinitions(client);
      browser = await launchBrowser();
      page = await browser.context.newPage();
    });

    after(async () => {
      for (const node of nodes) {
        const exited = await Promise.race([
          node.exited,
          new Promise((r) => setTimeout(() => r(undefined), 10)),
        ]);
        if (exited || process.env.UI_TEST_LOGS)
          console.error(`a Baton node exited: ${JSON.stringify(exited)}\n${node.logs()}`);
      }
      await browser?.close();
      await proxy?.close();
      await Promise.all(nodes.map((n) => n.stop()));
      await db?.drop();
    });

    it('finds a run by correlation id, follows its node states and completes its HUMAN task', async () => {
      const target = await start('ui_order', { orderId: 'C-7', kind: 'express' }, 'cluster-order-7');
      for (let i = 0; i < 3; i++)
        await start('ui_order', { orderId: `D-${i}`, kind: 'standard' }, `cluster-other-${i}`);

      await page.goto(api('/runs'));
      await page.getByRole('row').filter({ hasText: target }).waitFor();
      const { rows, id } = await searchByCorrelation(page, helpers, 'cluster-order-7');
      assert.equal(id, target);
      await rows.getByRole('link', { name: target }).click();
      await page.waitForURL(`**/runs/${target}`);
      const waiting = page.getByTestId('waiting-for');
      await waiting.getByRole('button', { name: 'charge' }).waitFor();
      await page.locator('.box[data-ref="charge"][data-state="SCHEDULED"]').waitFor();

      // The charge is answered through the proxy too; the page, polling both nodes, follows.
      await work('ui_charge', 'COMPLETED', { charged: 7 });
      assert.deepEqual(await orderBoxesAtApproval(page), ORDER_BOXES_AT_APPROVAL);
      assert.match(await page.locator('.box[data-ref="checks"]').innerText(), /iteration 3/);

      await waiting.getByRole('button', { name: 'approve' }).click();
      const panel = page.getByTestId('task-panel');
      await panel
        .getByText('Check the parcel for order C-7, then approve shipping.', { exact: true })
        .waitFor();
      await submitTaskOutput(page, panel, '{"approved": true, "by": "cluster test"}');
      await page.locator('.box[data-ref="approve"][data-state="COMPLETED"]').waitFor();
      const done = await get(`/api/workflow/${target}`);
      assert.equal(done.status, 'COMPLETED');
      assert.deepEqual(done.output, { approved: true });
    });

    it('retries a failed run and follows the link to the new run and back', async () => {
      const failed = await start('ui_fragile', {}, 'cluster-fragile-1');
      await work('ui_flaky', 'FAILED');
      await runStatus(failed, 'FAILED');

      await page.goto(api(`/runs/${failed}`));
      await page.getByTestId('waiting-for').getByText('the card was declined').waitFor();
      await page.locator('.box[data-ref="step"][data-state="FAILED"]').waitFor();
      const retried = await retryRun(page, failed);
      assert.notEqual(retried, failed);
      const links = page.getByTestId('run-links');
      await links.getByText('retry of').waitFor();
      assert.equal((await get(`/api/workflow/${retried}`)).links.retry_of, failed);
      await work('ui_flaky', 'COMPLETED');
      await page.getByTestId('waiting-for').getByRole('heading', { name: 'Completed' }).waitFor();

      await links.getByRole('link', { name: failed }).click();
      await page.waitForURL(`**/runs/${failed}`);
      await page.getByTestId('run-links').getByText('retried by').waitFor();
      await page.getByTestId('run-links').getByRole('link', { name: retried }).waitFor();

      // Both nodes really answered the page: the test is not a one-node test in disguise.
      for (const [i, count] of proxy.served.entries())
        assert.ok(count > 10, `node ${nodes[i]?.url} answered only ${count} requests`);
    });
  });
