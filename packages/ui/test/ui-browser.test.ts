import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import type { Page } from 'playwright-core';

import type { BatonProcess } from '../../server/test/helpers/baton-process.js';
import {
  batonProcess,
  launchBrowser,
  oidcProvider,
  repoRoot,
  uiBuilt,
  type Browser,
} from './helpers/browser.js';
import {
  apiClient,
  ORDER_BOXES_AT_APPROVAL,
  orderBoxesAtApproval,
  orderWorkflow,
  registerDefinitions,
  retryRun,
  searchByCorrelation,
  submitTaskOutput,
  replaceEditorText,
  taskDef,
  WAIT,
  waitInEditor,
} from './helpers/fixtures.js';

/**
 * The web UI in a real browser against a real Baton process: runs are started and worked over
 * the public API, and the test clicks through the pages the way an operator would. The main
 * pages are photographed every run; with BATON_UPDATE_SCREENSHOTS=1 (`npm run screenshots`) into
 * docs/screenshots for the README, otherwise into a scratch directory, so a test run leaves the
 * checkout as it found it.
 */

const SHOTS =
  process.env.BATON_UPDATE_SCREENSHOTS === '1'
    ? path.join(repoRoot, 'docs/screenshots')
    : path.join(tmpdir(), `baton-ui-screenshots-${process.pid}`);
mkdirSync(SHOTS, { recursive: true });
describe('web UI in Chromium', () => {
  let baton: BatonProcess;
  let browser: Browser;
  let page: Page;
  let helpers: Awaited<ReturnType<typeof batonProcess>>;

  const client = apiClient(
    () => helpers,
    () => baton.url,
  );
  const { api, get, post, start, work, runStatus } = client;
  const shot = (name: string) => shotOf(page, name);

  before(async () => {
    assert.ok(uiBuilt(), 'the UI is not built: run `npm run build` first (npm test does)');
    helpers = await batonProcess();
    baton = await helpers.startBaton({ name: 'ui' });
    await registerDefinitions(client);
    // The approval's task definition says what a person answers (shown as the expected shape).
    await post('/api/metadata/taskdefs', [
      taskDef('approve', {
        outputSchema: {
          type: 'object',
          properties: { approved: { type: 'boolean' }, by: { type: 'string' } },
        },
      }),
    ]);
    // A local zone that is not UTC (and has no summer time), so "local" and "UTC" differ.
    browser = await launchBrowser({ timezoneId: 'Asia/Kolkata' });
    page = await browser.context.newPage();
  });

  after(async () => {
    // A server that died mid-suite explains itself here.
    const exited = await Promise.race([
      baton?.exited,
      new Promise((r) => setTimeout(() => r(undefined), 10)),
    ]);
    if (exited || process.env.UI_TEST_LOGS)
      console.error(`the Baton process exited: ${JSON.stringify(exited)}\n${baton.logs()}`);
    await browser?.close();
    await baton?.stop();
  });

  it('serves the app shell at / and on client routes, and keeps JSON 404s under /api', async () => {
    const root = await helpers.http('GET', api('/'));
    assert.equal(root.status, 200);
    assert.match(root.contentType, /text\/html/);
    const deep = await helpers.http('GET', api('/runs/some-run-id?task=x'));
    assert.equal(deep.status, 200);
    assert.equal(deep.text, root.text, 'a client route answers the same shell');
    const missing = await helpers.http('GET', api('/api/no-such-route'));
    assert.equal(missing.status, 404);
    assert.equal((missing.body as any).status, 404);
    const escape = await helpers.http('GET', api('/..%2f..%2fpackage.json'));
    assert.ok(!escape.text.includes('"workspaces"'), 'no file outside the UI build is served');
  });

  it('finds a run by correlation id, shows what it waits for and each node state, and completes its HUMAN task', async () => {
    const target = await start('ui_order', { orderId: 'A-42', kind: 'express' }, 'order-42');
    for (let i = 0; i < 4; i++)
      await start('ui_order', { orderId: `B-${i}`, kind: 'standard' }, `order-other-${i}`);

    await page.goto(api('/runs'));
    await page.getByRole('row').filter({ hasText: target }).waitFor();
    await shot('runs');
    await page.setViewportSize({ width: 390, height: 844 });
    await shot('runs-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
    const { rows, id: found } = await searchByCorrelation(page, helpers, 'order-42');
    assert.equal(found, target);

    await rows.getByRole('link', { name: target }).click();
    await page.waitForURL(`**/runs/${target}`);
    // First, in words: the charge task waits for a worker.
    const waiting = page.getByTestId('waiting-for');
    await waiting.getByRole('button', { name: 'charge' }).waitFor();
    // …and leads to the queue that is not served.
    await waiting.getByRole('link', { name: 'queue ui_charge' }).waitFor();
    assert.match(await waiting.innerText(), /Waiting for/);
    assert.match(await waiting.innerText(), /ui_charge/);
    await page.locator('.box[data-ref="charge"][data-state="SCHEDULED"]').waitFor();

    await work('ui_charge', 'COMPLETED', { charged: 42 });
    // The page follows the run by itself: the switch took "express", the fork's branches, the
    // loop's three iterations, and now the approval waits.
    assert.deepEqual(await orderBoxesAtApproval(page), ORDER_BOXES_AT_APPROVAL);
    assert.match(await page.locator('.box[data-ref="checks"]').innerText(), /iteration 3/);
    assert.equal(await page.locator('.react-flow__edge.edge-taken').count(), 1, 'the branch taken is marked');

    // Keyboard: a focused box opens its task panel with Enter, as a click does.
    await page.locator('.react-flow__node[data-id="charge"]').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('task-panel').getByRole('heading', { name: 'charge', exact: true }).waitFor();
    await waiting.getByRole('button', { name: 'approve' }).click();
    const panel = page.getByTestId('task-panel');
    await panel
      .getByText('Check the parcel for order A-42, then approve shipping.', { exact: true })
      .waitFor();
    // The form starts empty and shows the shape the task definition expects.
    assert.equal(await panel.getByLabel(/Output \(JSON/).inputValue(), '');
    const expected = panel.getByTestId('expected-output');
    assert.match(await expected.innerText(), /outputSchema of task definition approve/);
    assert.deepEqual(JSON.parse(await expected.locator('pre').innerText()), { approved: false, by: '' });
    await shot('run');
    await page.setViewportSize({ width: 390, height: 844 });
    await shot('run-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
    await submitTaskOutput(page, panel, '{"approved": true, "by": "ui test"}');
    const done = await get(`/api/workflow/${target}`);
    assert.equal(done.status, 'COMPLETED');
    assert.deepEqual(done.output, { approved: true });
  });

  it('frames each diagram whole at 1280×800 and within the window, its loops’ ways back crossing no other arrow', async () => {
    const id = await start('ui_order', { orderId: 'F-1', kind: 'express' }, 'frame-1');
    // The example shipped with the repository: a long description above the diagram, two ways
    // back into its loop.
    await post(
      '/api/metadata/workflow',
      JSON.parse(readFileSync(path.join(repoRoot, 'examples/agent-loop/agent-loop.workflow.json'), 'utf8')),
    );
    for (const [where, name, lastRef, ways] of [
      [`/definitions/ui_order`, 'definition', 'approve', 1],
      [`/runs/${id}`, '', 'approve', 1],
      [`/definitions/agent_loop`, '', 'remember_tool_answers', 2],
    ] as const) {
      await page.goto(api(where));
      await page.locator(`.box[data-ref="${lastRef}"]`).waitFor();
      await diagramFitted(page);
      const frame = await page.getByTestId('diagram').boundingBox();
      assert.ok(frame);
      // The frame is cut to end within the window when the page opens: no part of the fitted
      // drawing lies below the fold.
      assert.ok(
        frame.y + frame.height <= 800,
        `${where}: the diagram's frame ends within the 800 px window (${JSON.stringify(frame)})`,
      );
      const framing = await page
        .getByTestId('diagram')
        .evaluate(
          (d) =>
            `${d.getAttribute('data-direction')} ${d.getAttribute('data-extent')} ${d.getAttribute('data-fitted')}`,
        );
      if (name) await shot(name);
      const boxes = await page.locator('.react-flow__node').evaluateAll((els) =>
        els.map((e) => {
          const r = e.getBoundingClientRect();
          return {
            id: e.getAttribute('data-id'),
            left: r.left,
            top: r.top,
            right: r.right,
            bottom: r.bottom,
          };
        }),
      );
      assert.ok(boxes.length >= 12, `${where}: every box drawn`);
      for (const b of boxes) {
        assert.ok(
          b.left >= frame.x - 0.5 &&
            b.top >= frame.y - 0.5 &&
            b.right <= frame.x + frame.width + 0.5 &&
            b.bottom <= frame.y + frame.height + 0.5,
          `${where}: box ${b.id} inside the frame (${JSON.stringify(b)} in ${JSON.stringify(frame)}, ${framing})`,
        );
      }
      // No empty bands: the drawing spans (nearly) the frame's width or its height, unless it is
      // already drawn at its largest zoom.
      const drawn = [
        ...boxes,
        ...(await page.locator('.react-flow__edge path.react-flow__edge-path').evaluateAll((els) =>
          els.map((e) => {
            const r = e.getBoundingClientRect();
            return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
          }),
        )),
      ];
      const spanX = Math.max(...drawn.map((b) => b.right)) - Math.min(...drawn.map((b) => b.left));
      const spanY = Math.max(...drawn.map((b) => b.bottom)) - Math.min(...drawn.map((b) => b.top));
      const zoom = Number(framing.split(',').pop());
      assert.ok(
        spanX >= (frame.width - 48) * 0.85 || spanY >= (frame.height - 48) * 0.85 || zoom >= 1.099,
        `${where}: the drawing fills the frame (${spanX}×${spanY} in ${frame.width}×${frame.height}, ${framing})`,
      );
      const paths = await page.locator('.react-flow__edge').evaluateAll((els) =>
        els.map((e) => ({
          back: e.classList.contains('edge-back'),
          d: e.querySelector('path.react-flow__edge-path')?.getAttribute('d') ?? '',
        })),
      );
      const back = paths.filter((p) => p.back);
      assert.equal(back.length, ways, `${where}: ${ways} way(s) back into the loop`);
      for (const way of back)
        for (const other of paths.filter((p) => !p.back))
          assert.equal(crosses(way.d, other.d), false, `${where}: a way back crosses ${other.d}`);
    }
  });

  it('shows every time with its zone, switched between local and UTC and remembered', async () => {
    const id = await start('ui_unserved', {}, 'zone-1');
    await page.goto(api(`/runs?correlationId=zone-1`));
    const started = page.locator(`tr[data-run="${id}"] td`).nth(5);
    await started.getByText(/UTC\+5:30$/).waitFor();
    const local = await started.innerText();
    const zone = page.getByRole('group', { name: 'Times shown in' });
    await zone.getByRole('button', { name: 'UTC' }).click();
    await started.getByText(/\d\d:\d\d:\d\d UTC$/).waitFor();
    const utc = await started.innerText();
    const at = (text: string, offsetMin: number) =>
      Date.parse(text.replace(/ UTC.*$/, '').replace(' ', 'T') + 'Z') - offsetMin * 60_000;
    assert.equal(at(local, 330), at(utc, 0), `${local} and ${utc} are the same moment`);
    // The search's time inputs read in the zone shown.
    await page.getByText('Started after (UTC)').waitFor();
    // Remembered: a reload keeps UTC, on every page.
    await page.reload();
    await started.getByText(/ UTC$/).waitFor();
    assert.equal(await zone.getByRole('button', { name: 'UTC' }).getAttribute('aria-pressed'), 'true');
    await page.goto(api(`/runs/${id}`));
    await page.getByRole('tab', { name: 'Timeline' }).click();
    await page.getByTestId('timeline').getByText(/ UTC$/).first().waitFor();
    await zone.getByRole('button', { name: 'Local' }).click();
    await page
      .getByTestId('timeline')
      .getByText(/UTC\+5:30$/)
      .first()
      .waitFor();
  });

  it('shows a WAIT’s due time once, readable, with its zone', async () => {
    await post('/api/metadata/workflow', {
      name: 'ui_wait',
      version: 1,
      schemaVersion: 2,
      ownerEmail: 'ops@example.com',
      tasks: [
        { name: 'pause', taskReferenceName: 'pause', type: 'WAIT', inputParameters: { duration: '2 hours' } },
      ],
    });
    const id = await start('ui_wait', {}, 'wait-1');
    await page.goto(api(`/runs/${id}`));
    const summary = page.getByTestId('waiting-for');
    await summary.getByText(/until/).waitFor();
    const text = await summary.innerText();
    assert.match(text, /until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\+5:30 \(in (1 h 59|2 h 0) min\)/);
    assert.doesNotMatch(text, /\d+ s\)/, 'no count of seconds');
    assert.equal(text.match(/\(in /g)?.length, 1, 'one due time');
    await summary.getByRole('button', { name: 'pause' }).click();
    const waiting = page.getByTestId('task-waiting');
    await waiting.waitFor();
    assert.match(await waiting.innerText(), /UTC\+5:30 \(in (1 h 59|2 h 0) min\)/);
    assert.doesNotMatch(await waiting.innerText(), /\d+ s\)/);
  });

  it('finds tasks by type, status, worker, run, time and free text, each leading to its run', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 26; i++) ids.push(await start('ui_unserved', {}, `stuck-${i}`));
    const order = await start('ui_order', { orderId: 'Q-77', kind: 'standard' }, 'search-1');
    // Charge tasks left by earlier tests are worked first (the queue hands out the oldest).
    while ((await work('ui_charge', 'COMPLETED', { charged: 77 })).workflowInstanceId !== order);
    const open = await get('/api/tasks/search?taskType=ui_idle&status=SCHEDULED,IN_PROGRESS&size=0');
    assert.ok(open.totalHits >= 26);

    await page.goto(api('/runs'));
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Tasks' }).click();
    await page.waitForURL('**/tasks');
    await page.getByLabel('Task type').fill('ui_idle');
    await page.getByRole('button', { name: 'Open tasks, longest untouched first' }).click();
    const count = page.getByTestId('task-count');
    await count.getByText(`1–25 of ${open.totalHits} tasks`).waitFor();
    const rows = page.getByTestId('task-results').locator('tbody tr[data-task]');
    assert.equal(await rows.count(), 25);
    for (const status of await rows.locator('.badge').allInnerTexts()) assert.equal(status, 'SCHEDULED');
    await shot('tasks');
    await page.getByRole('button', { name: 'Next →' }).click();
    await count.getByText(`26–${open.totalHits} of ${open.totalHits} tasks`).waitFor();
    // None of them has been untouched for an hour yet; all of them for a moment.
    await page.getByLabel('Untouched for (min)').fill('60');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await count.getByText('no tasks match').waitFor();
    assert.equal(await page.getByRole('alert').count(), 0);
    await page.getByLabel('Untouched for (min)').fill('0.001');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await count.getByText(`1–25 of ${open.totalHits} tasks`).waitFor();

    // By worker and free text (the order's input): the one charge task, linked to its run.
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByLabel('Task type').fill('ui_charge');
    await page.getByLabel('Worker').fill('ui-test-worker');
    await page.getByLabel('Free text').fill('Q-77');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await count.getByText('1–1 of 1 task').waitFor();
    assert.match(await rows.first().innerText(), /ui-test-worker/);
    await page.getByLabel('Worker').fill('nobody');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await count.getByText('no tasks match').waitFor();
    // A time range in the future finds nothing; the past hour finds it again.
    await page.getByLabel('Worker').fill('');
    await page.getByLabel(/^Started after/).fill('2099-01-01T00:00');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await count.getByText('no tasks match').waitFor();
    await page.getByLabel(/^Started after/).fill('2000-01-01T00:00');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await count.getByText('1–1 of 1 task').waitFor();
    await rows.first().getByRole('link', { name: order }).click();
    await page.waitForURL(`**/runs/${order}?task=charge`);
    await page.getByTestId('task-panel').getByRole('heading', { name: 'charge', exact: true }).waitFor();
    for (const id of ids)
      await helpers.httpOk('DELETE', api(`/api/workflow/${id}?reason=done`)).catch(() => undefined);
  });

  it('retries a failed run and follows the link to the new run and back', async () => {
    const failed = await start('ui_fragile', { attempt: 1 }, 'fragile-1');
    await work('ui_flaky', 'FAILED');
    await runStatus(failed, 'FAILED');

    await page.goto(api(`/runs/${failed}`));
    const summary = page.getByTestId('waiting-for');
    await summary.getByText('the card was declined').waitFor();
    await page.locator('.box[data-ref="step"][data-state="FAILED"]').waitFor();
    const retried = await retryRun(page, failed);
    assert.notEqual(retried, failed);
    const links = page.getByTestId('run-links');
    await links.getByText('retry of').waitFor();
    assert.equal((await get(`/api/workflow/${retried}`)).links.retry_of, failed);
    // The new run goes on where the old one failed; the page follows it to the end.
    await work('ui_flaky', 'COMPLETED');
    await page.getByTestId('waiting-for').getByRole('heading', { name: 'Completed' }).waitFor();

    await links.getByRole('link', { name: failed }).click();
    await page.waitForURL(`**/runs/${failed}`);
    await page.getByTestId('run-links').getByText('retried by').waitFor();
    await page.getByTestId('run-links').getByRole('link', { name: retried }).waitFor();
  });

  it('shows every validation problem of a definition as it is typed, redraws it, and saves it once fixed', async () => {
    await page.goto(api('/definitions/new'));
    const editor = page.getByLabel('Definition (JSON)', { exact: true });
    const broken = {
      name: 'ui_drafted',
      version: 1,
      schemaVersion: 2,
      ownerEmail: 'ops@example.com',
      tasks: [
        { name: 'ui_charge', taskReferenceName: 'pay', type: 'SIMPLE' },
        { name: 'notify', taskReferenceName: 'pay', type: 'NOOP' },
      ],
    };
    await replaceEditorText(editor, JSON.stringify(broken, null, 2));
    const problems = page.getByTestId('problems');
    await waitInEditor(page, problems.getByText(/pay/).first());
    assert.doesNotMatch(await problems.innerText(), /valid$/);
    assert.equal(await page.getByRole('button', { name: 'Create' }).isDisabled(), true);
    // A code editor: line numbers, JSON highlighting, the problem marked on its line.
    assert.ok((await page.locator('.cm-lineNumbers .cm-gutterElement').count()) > 10, 'line numbers');
    assert.ok((await page.locator('.cm-content span[class]').count()) > 5, 'JSON highlighting');
    await page.locator('.cm-lintRange-error').first().waitFor();
    await page.locator('.cm-lint-marker-error').first().waitFor();
    // The duplicated reference is on the second task's line; a click on the problem goes there.
    const duplicate = problems.getByRole('button', { name: /pay/ }).first();
    const line = Number(await duplicate.getAttribute('data-line'));
    const lines = JSON.stringify(broken, null, 2).split('\n');
    assert.ok(
      line > 1 && /"taskReferenceName": "pay"|"name": "notify"|\{/.test(lines[line - 1] ?? ''),
      `line ${line}`,
    );
    await duplicate.click();
    await page.locator('.cm-activeLineGutter').getByText(String(line), { exact: true }).waitFor();
    // The definition's diagram shows no run state: no box says "not reached".
    await page.locator('.box[data-ref="notify"], .box[data-ref="pay"]').first().waitFor();
    assert.doesNotMatch(await page.getByTestId('diagram').innerText(), /not reached/);
    await shot('definition-editor');

    // Half-typed JSON: the parse error is shown at once, on its line; the last diagram stays.
    await replaceEditorText(editor, '{ "name": ');
    await problems.getByText(/JSON does not parse/).waitFor();
    assert.equal(await problems.getByRole('button').first().getAttribute('data-line'), '1');
    assert.equal(
      await page.getByRole('button', { name: 'JSON does not parse', exact: true }).isDisabled(),
      true,
    );

    const fixed = {
      ...broken,
      tasks: [broken.tasks[0], { ...broken.tasks[1], taskReferenceName: 'notify' }],
    };
    await replaceEditorText(editor, JSON.stringify(fixed, null, 2));
    await problems.getByText('✓ valid').waitFor();
    await page.locator('.box[data-ref="notify"]').waitFor();
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL('**/definitions/ui_drafted');
    await page.getByRole('heading', { name: /ui_drafted/ }).waitFor();
    // Edit it again: saved as a new version, the old one kept.
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.waitForURL('**/definitions/ui_drafted/edit?version=1');
    await problems.getByText('✓ valid').waitFor();
    await page.getByRole('button', { name: 'Save over v1' }).waitFor();
    // While the JSON does not parse, one disabled button says so (no "Save over v?", no twin).
    await replaceEditorText(editor, '{ "name": "ui_drafted", ');
    const unparsed = page.getByRole('button', { name: 'JSON does not parse', exact: true });
    await unparsed.waitFor();
    assert.equal(await page.getByRole('button', { name: /Save over/ }).count(), 0);
    assert.equal(await unparsed.count(), 1);
    assert.equal(await unparsed.isDisabled(), true);
    const edited = { ...fixed, description: 'second draft' };
    await replaceEditorText(editor, JSON.stringify(edited, null, 2));
    await problems.getByText('✓ valid').waitFor();
    await page.getByRole('button', { name: 'Save as new version' }).click();
    await page.waitForURL('**/definitions/ui_drafted');
    await page.getByText('second draft', { exact: true }).waitFor();
    assert.equal((await get('/api/metadata/workflow/ui_drafted')).version, 2);
    assert.equal((await get('/api/metadata/workflow/ui_drafted?version=1')).description, undefined);
    const saved = await get('/api/metadata/workflow/ui_drafted');
    assert.deepEqual(
      saved.tasks.map((t: any) => t.taskReferenceName),
      ['pay', 'notify'],
    );
    await page.goto(api('/definitions'));
    await page.getByRole('link', { name: 'ui_drafted' }).waitFor();
    await shot('definitions');
  });

  it('checks a definition again when the server could not answer, instead of showing that as its problem', async () => {
    // The first two checks meet an unavailable server (as a node under load or restarting
    // answers); the editor keeps checking and then shows the server's real verdict.
    let refused = 0;
    await page.route('**/api/metadata/workflow/validate', async (route) => {
      if (refused < 2) {
        refused++;
        await route.fulfill({
          status: 503,
          contentType: 'application/json',
          body: '{"message":"unavailable"}',
        });
      } else await route.continue();
    });
    try {
      await page.goto(api('/definitions/new'));
      const editor = page.getByLabel('Definition (JSON)', { exact: true });
      await replaceEditorText(
        editor,
        JSON.stringify({
          name: 'ui_rechecked',
          version: 1,
          schemaVersion: 2,
          ownerEmail: 'ops@example.com',
          tasks: [
            { name: 'n', taskReferenceName: 'twice', type: 'NOOP' },
            { name: 'm', taskReferenceName: 'twice', type: 'NOOP' },
          ],
        }),
      );
      const problems = page.getByTestId('problems');
      await problems.getByText(/twice/).first().waitFor();
      assert.equal(refused, 2);
      assert.doesNotMatch(await problems.innerText(), /unavailable/);
    } finally {
      await page.unroute('**/api/metadata/workflow/validate');
    }
  });

  it('validates a task definition as it is typed', async () => {
    await page.goto(api('/taskdefs/new'));
    const editor = page.getByLabel('Task definition (JSON)', { exact: true });
    await replaceEditorText(editor, JSON.stringify({ name: 'ui_typed', retryCount: -1 }));
    await page
      .getByTestId('problems')
      .getByText(/retryCount/)
      .waitFor();
    await page.locator('.cm-lintRange-error').first().waitFor();
    await replaceEditorText(
      editor,
      JSON.stringify({ name: 'ui_typed', retryCount: 2, ownerEmail: 'ops@example.com' }),
    );
    await page.getByTestId('problems').getByText('✓ valid').waitFor();
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL('**/taskdefs/ui_typed');
    assert.equal((await get('/api/metadata/taskdefs/ui_typed')).retryCount, 2);
  });

  it('warns of a queue nobody serves and requeues a dead letter, reopening its run', async () => {
    const dead = await start('ui_deadletter', {}, 'dead-1');
    await work('ui_dead', 'FAILED');
    await runStatus(dead, 'FAILED');
    await start('ui_unserved', {}, 'unserved-1');

    await page.goto(api('/queues'));
    await page
      .getByTestId('no-worker-warning')
      .getByText(/ui_idle/)
      .waitFor();
    const row = page.locator('tr[data-queue="ui_dead"]');
    await row.getByRole('button', { name: 'Requeue' }).waitFor();
    await shot('queues');
    await row.getByRole('button', { name: 'Requeue' }).click();
    await page
      .getByTestId('requeue-result')
      .getByText(/1 dead letter\(s\) requeued/)
      .waitFor();
    await runStatus(dead, 'RUNNING');
    await page.getByTestId('requeue-result').getByRole('link', { name: dead }).click();
    await page.waitForURL(`**/runs/${dead}`);
    await page
      .getByTestId('waiting-for')
      .getByText(/Waiting for/)
      .waitFor();
  });

  it('runs a definition in the test workbench with mocks, drawn on the diagram', async () => {
    await page.goto(api('/workbench?name=ui_order'));
    await page.getByLabel('Input (JSON)').fill('{"orderId": "T-1", "kind": "standard"}');
    await page.getByLabel(/Mocked results/).fill(
      JSON.stringify({
        charge: [{ status: 'COMPLETED', output: { charged: 1 } }],
        approve: [{ status: 'COMPLETED', output: { approved: false } }],
      }),
    );
    await page.getByRole('button', { name: 'Run test' }).click();
    const result = page.getByTestId('test-result');
    await result.getByText('COMPLETED').waitFor();
    await page.locator('.box[data-ref="charge"][data-state="COMPLETED"]').getByText('mock').waitFor();
    assert.equal(
      await page.locator('.box[data-ref="standard_label"]').getAttribute('data-state'),
      'COMPLETED',
    );
    await shot('workbench');
  });

  it('starts a run from the form and lands on it; a priority out of range is refused, not clamped', async () => {
    await page.goto(api('/workbench?name=ui_unserved'));
    const before = (await get('/api/workflow/search?query=workflowType%3Dui_unserved')).totalHits;
    await page.getByLabel('Priority (0–99)').fill('150');
    await page.getByRole('button', { name: 'Start run' }).click();
    const refusal = page.getByTestId('form-error');
    await refusal.getByText(/priority/).waitFor();
    assert.match(await refusal.innerText(), /99/);
    assert.equal(await page.getByLabel('Priority (0–99)').inputValue(), '150', 'not clamped');
    // The refusal sits under "Start run" (not under the test workbench), the field marked.
    assert.equal(await page.getByLabel('Priority (0–99)').getAttribute('aria-invalid'), 'true');
    const refusalAt = await refusal.boundingBox();
    const workbenchAt = await page.getByRole('heading', { name: 'Test workbench' }).boundingBox();
    const startAt = await page.getByRole('button', { name: 'Start run' }).boundingBox();
    assert.ok(refusalAt && workbenchAt && startAt);
    assert.ok(startAt.y < refusalAt.y && refusalAt.y < workbenchAt.y, 'the refusal follows Start run');
    assert.equal((await get('/api/workflow/search?query=workflowType%3Dui_unserved')).totalHits, before);
    await page.getByLabel('Correlation id').fill('from-the-form');
    await page.getByLabel('Priority (0–99)').fill('7');
    await page.getByRole('button', { name: 'Start run' }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/runs/'));
    const id = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
    const run = await get(`/api/workflow/${id}`);
    assert.equal(run.correlationId, 'from-the-form');
    assert.equal(run.priority, 7);
  });

  it('pauses, resumes and terminates runs in bulk, showing each run’s result', async () => {
    const a = await start('ui_unserved', {}, 'bulk-a');
    const b = await start('ui_unserved', {}, 'bulk-b');
    const ended = await start('ui_fragile', {}, 'bulk-ended');
    await work('ui_flaky', 'FAILED');
    await runStatus(ended, 'FAILED');
    await page.goto(api('/runs?size=250'));
    for (const id of [a, b, ended]) await page.getByLabel(`Select run ${id}`).check();
    await page.getByRole('group', { name: 'Bulk actions' }).getByRole('button', { name: 'pause' }).click();
    const result = page.getByTestId('bulk-result');
    await result.getByText('pause: 2 done, 1 refused').waitFor();
    await result.getByRole('link', { name: ended }).waitFor();
    // The result reads as words, its dismiss button apart from them.
    assert.doesNotMatch(await result.innerText(), /refuseddismiss/i);
    assert.match(await result.innerText(), /^pause: 2 done, 1 refused\s+Dismiss/);
    assert.equal((await get(`/api/workflow/${a}`)).status, 'PAUSED');
    page.once('dialog', (d) => void d.accept('cleaning up'));
    for (const id of [a, b]) await page.getByLabel(`Select run ${id}`).check();
    await page
      .getByRole('group', { name: 'Bulk actions' })
      .getByRole('button', { name: 'terminate' })
      .click();
    await result.getByText('2 done, 1 refused').waitFor();
    await runStatus(a, 'TERMINATED');
    await runStatus(b, 'TERMINATED');
    assert.equal((await get(`/api/workflow/${a}`)).reasonForIncompletion, 'cleaning up');
  });

  it('follows a sub-workflow box to the child run and back to its parent', async () => {
    await post('/api/metadata/workflow', {
      name: 'ui_parent',
      version: 1,
      schemaVersion: 2,
      ownerEmail: 'ops@example.com',
      tasks: [
        {
          name: 'child',
          taskReferenceName: 'child',
          type: 'SUB_WORKFLOW',
          subWorkflowParam: { name: 'ui_unserved', version: 1 },
        },
      ],
    });
    const parent = await start('ui_parent', {}, 'parent-1');
    const child = await helpers.waitFor(
      async () => {
        const run = await get(`/api/workflow/${parent}`);
        return run.tasks.find((t: any) => t.subWorkflowId)?.subWorkflowId as string | undefined;
      },
      { ...WAIT, what: 'the child run to start' },
    );
    await page.goto(api(`/runs/${parent}`));
    await page.getByTestId('waiting-for').getByText(/child/).first().waitFor();
    await page
      .locator('.box[data-ref="child"]')
      .getByRole('button', { name: /open child run/ })
      .click();
    await page.waitForURL(`**/runs/${child}`);
    await page.getByTestId('run-links').getByText('parent').waitFor();
    await page.getByTestId('run-links').getByRole('link', { name: parent }).click();
    await page.waitForURL(`**/runs/${parent}`);
  });

  it('restarts an ended run with the latest definition and terminates a run with a reason, from the run page', async () => {
    const id = await start('ui_unserved', {}, 'restart-me');
    await page.goto(api(`/runs/${id}`));
    await page.getByRole('button', { name: 'Terminate…' }).click();
    await page.getByLabel('Reason (kept on the run)').fill('no longer needed');
    await page.getByRole('button', { name: 'Terminate run' }).click();
    await page.getByTestId('waiting-for').getByText('no longer needed').waitFor();
    assert.equal((await get(`/api/workflow/${id}`)).reasonForIncompletion, 'no longer needed');

    await page.getByRole('button', { name: 'Restart…' }).click();
    await page.getByLabel('the latest definition').check();
    await page.getByRole('button', { name: 'Restart', exact: true }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/runs/') && !url.pathname.endsWith(id));
    await page.getByTestId('run-links').getByText('restart of').waitFor();
    const restarted = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
    assert.equal((await get(`/api/workflow/${restarted}`)).links.restart_of, id);
    // The timeline shows the new run's attempt.
    await page.getByRole('tab', { name: 'Timeline' }).click();
    await page.getByTestId('timeline').getByRole('button', { name: 'step' }).waitFor();

    // Rerun the terminated run from its task, with new input for it.
    await page.goto(api(`/runs/${id}`));
    await page.getByRole('button', { name: 'Rerun from task…' }).click();
    await page.getByLabel('Rerun from task').selectOption('step');
    await page.getByLabel('New task input (optional JSON)').fill('{"attempt": 2}');
    await page.getByRole('button', { name: 'Rerun', exact: true }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/runs/') && !url.pathname.endsWith(id));
    await page.getByTestId('run-links').getByText('rerun of').waitFor();
    const rerun = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
    const rerunRun = await get(`/api/workflow/${rerun}`);
    assert.equal(rerunRun.links.rerun_of, id);
    assert.equal(rerunRun.tasks.find((t: any) => t.referenceTaskName === 'step')?.inputData.attempt, 2);
  });

  it('creates, edits, pauses and resumes a schedule, with its next run times and executions', async () => {
    await post('/api/metadata/workflow', {
      name: 'ui_scheduled',
      version: 1,
      schemaVersion: 2,
      ownerEmail: 'ops@example.com',
      tasks: [
        { name: 'mark', taskReferenceName: 'mark', type: 'SET_VARIABLE', inputParameters: { at: 'now' } },
      ],
    });
    await page.goto(api('/runs'));
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Schedules' }).click();
    await page.waitForURL('**/schedules');
    await page.getByRole('link', { name: 'New schedule' }).click();
    await page.getByLabel('Name').fill('ui bad name');
    // The next run times follow the cron expression as it is typed; a wrong one says why.
    await page.getByLabel(/^Cron expression/).fill('every night');
    await page.getByText(/invalid cron expression/).waitFor();
    await page.getByLabel(/^Cron expression/).fill('0 0 3 * * *');
    await page
      .getByTestId('next-runs')
      .getByText(/\d{2}:\d{2}:00 UTC/)
      .first()
      .waitFor();
    await page.getByLabel('Workflow to start').fill('ui_scheduled');
    await page.getByRole('button', { name: 'Create' }).click();
    // The server's 400 is shown as it said it.
    await page
      .getByTestId('form-error')
      .getByText(/Schedule name may hold/)
      .waitFor();
    await page.getByLabel('Name').fill('ui_nightly');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL('**/schedules/ui_nightly');
    const detail = page.getByTestId('schedule-detail');
    await detail.getByText(/Next run 20\d\d-/).waitFor();
    assert.equal((await get('/api/schedule/ui_nightly')).cronExpression, '0 0 3 * * *');

    await detail.getByRole('link', { name: 'Edit' }).click();
    await page.getByLabel(/^Cron expression/).fill('0 30 4 * * *');
    await page.getByLabel('Description').fill('Nightly mark');
    await page.getByRole('button', { name: 'Save' }).click();
    await detail.getByText('Nightly mark').waitFor();
    assert.equal((await get('/api/schedule/ui_nightly')).cronExpression, '0 30 4 * * *');

    const row = page.locator('tr[data-schedule="ui_nightly"]');
    await row.getByRole('button', { name: 'Pause ui_nightly' }).click();
    await row.getByText('PAUSED').waitFor();
    assert.equal((await get('/api/schedule/ui_nightly')).paused, true);
    await row.getByRole('button', { name: 'Resume ui_nightly' }).click();
    await row.getByText(/^in /).waitFor();
    assert.equal((await get('/api/schedule/ui_nightly')).paused, false);

    // A schedule that fires every second shows its executions, each linking to its run.
    await post('/api/schedule', {
      name: 'ui_every_second',
      cronExpression: '* * * * * *',
      startWorkflowRequest: { name: 'ui_scheduled' },
    });
    await page.goto(api('/schedules/ui_every_second'));
    const executions = page.getByTestId('schedule-executions');
    await executions.getByText('EXECUTED').first().waitFor();
    await helpers.httpOk('PUT', api('/api/schedule/ui_every_second/pause'));
    await page.goto(api('/schedules/ui_nightly'));
    await detail.getByText('Nightly mark').waitFor();
    await shot('schedules');
    await page.goto(api('/schedules/ui_every_second'));
    await executions.getByRole('link').first().click();
    await page.waitForURL('**/runs/**');
    await page.getByTestId('waiting-for').getByRole('heading', { name: 'Completed' }).waitFor();
  });

  it('creates an event handler (the server’s refusal shown), turns it off and on, and lists what it did', async () => {
    await post('/api/metadata/workflow', {
      name: 'ui_emit',
      version: 1,
      schemaVersion: 2,
      ownerEmail: 'ops@example.com',
      tasks: [
        {
          name: 'emit',
          taskReferenceName: 'emit',
          type: 'EVENT',
          sink: 'baton:ui_orders',
          inputParameters: { orderId: 'E-1' },
        },
      ],
    });
    await page.goto(api('/events'));
    await page.getByRole('link', { name: 'New event handler' }).click();
    const handler = {
      name: 'ui_on_order',
      event: 'kafka:ui_orders',
      actions: [{ action: 'start_workflow', start_workflow: { name: 'ui_scheduled' } }],
      active: true,
      description: 'Marks every order',
    };
    const editor = page.getByLabel('Event handler (JSON)');
    await editor.fill(JSON.stringify(handler, null, 2));
    await page.getByRole('button', { name: 'Create' }).click();
    await page
      .getByTestId('form-error')
      .getByText(/source 'kafka' is not supported/)
      .waitFor();
    await editor.fill(JSON.stringify({ ...handler, event: 'baton:ui_orders' }, null, 2));
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL('**/events/ui_on_order');

    const row = page.locator('tr[data-handler="ui_on_order"]');
    await row.getByRole('button', { name: 'Deactivate ui_on_order' }).click();
    await row.getByText('inactive').waitFor();
    assert.equal((await get<any[]>('/api/event')).find((h) => h.name === 'ui_on_order').active, false);
    await row.getByRole('button', { name: 'Activate ui_on_order' }).click();
    await row.getByText('active', { exact: true }).waitFor();
    assert.equal((await get<any[]>('/api/event')).find((h) => h.name === 'ui_on_order').active, true);

    // A message on the event: the handler starts a run, listed with a link to it.
    await start('ui_emit', {}, 'emit-1');
    const executions = page.getByTestId('handler-executions');
    await executions.getByText('COMPLETED').waitFor({ timeout: 30_000 });
    await executions.getByRole('link').first().waitFor();
    await shot('event-handlers');
  });

  it('writes an instruction text and a second version of it', async () => {
    await page.goto(api('/instructions'));
    await page.getByRole('link', { name: 'New instruction text' }).click();
    await page.getByLabel(/^Name/).fill('parcel check');
    await page.getByLabel('Text', { exact: true }).fill('Weigh the parcel.');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByTestId('form-error').waitFor();
    assert.match(await page.getByTestId('form-error').innerText(), /name/);
    await page.getByLabel(/^Name/).fill('ui_parcel_check');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL('**/instructions/ui_parcel_check');
    await page.getByTestId('instruction-text').getByText('Weigh the parcel.').waitFor();
    await page.getByRole('link', { name: 'Edit (new version)' }).click();
    await page.getByLabel('Text', { exact: true }).fill('Weigh the parcel, then photograph the label.');
    await page.getByRole('button', { name: 'Save as new version' }).click();
    await page.getByTestId('instruction-detail').getByText('v2', { exact: true }).first().waitFor();
    await page
      .getByTestId('instruction-text')
      .getByText(/photograph the label/)
      .waitFor();
    assert.equal((await get('/api/metadata/instructions/ui_parcel_check')).version, 2);
    assert.equal((await get('/api/metadata/instructions/ui_parcel_check/1')).text, 'Weigh the parcel.');
    await shot('instructions');
  });

  it('draws a run with a 1,000-iteration loop and a 500-branch fork collapsed, and stays responsive', async () => {
    const inline = { evaluatorType: 'javascript', expression: '1' };
    await post('/api/metadata/workflow', {
      name: 'ui_big',
      version: 1,
      schemaVersion: 2,
      ownerEmail: 'ops@example.com',
      tasks: [
        {
          name: 'spin',
          taskReferenceName: 'spin',
          type: 'DO_WHILE',
          loopCondition: '$.spin.iteration < 1000',
          inputParameters: {},
          loopOver: [{ name: 'tick', taskReferenceName: 'tick', type: 'INLINE', inputParameters: inline }],
        },
        {
          name: 'fan',
          taskReferenceName: 'fan',
          type: 'FORK_JOIN_DYNAMIC',
          inputParameters: {
            forkTaskName: 'leaf',
            forkTaskType: 'INLINE',
            forkTaskInputs: '${workflow.input.items}',
          },
        },
        { name: 'gather', taskReferenceName: 'gather', type: 'JOIN' },
        { name: 'ui_idle', taskReferenceName: 'hold', type: 'SIMPLE' },
      ],
    });
    const id = await start('ui_big', { items: Array.from({ length: 500 }, () => inline) }, 'big-1');
    await helpers.waitFor(
      async () => {
        const run = await get(`/api/workflow/${id}?includeTasks=false`);
        return run.status !== 'RUNNING' ||
          (run.waitingFor ?? []).some((w: any) => w.referenceTaskName === 'hold')
          ? run
          : undefined;
      },
      { timeoutMs: 180_000, intervalMs: 500, what: 'the big run to reach its last task' },
    );
    await page.goto(api(`/runs/${id}`));
    await page.locator('.box[data-ref="hold"]').waitFor({ timeout: 60_000 });
    // One box per definition task plus one for the 500 branches, not a box per execution.
    assert.ok((await page.locator('.box').count()) < 12, 'the loop and the fork are collapsed');
    assert.match(await page.locator('.box[data-ref="spin"]').innerText(), /iteration 1000/);
    assert.match(
      await page.locator('.box[data-ref="fan:branches"]').innerText(),
      /500 branches[\s\S]*500 completed/,
    );
    // The page still answers: the task table pages its rows and the panel opens at once.
    await page.getByRole('button', { name: /^Show 200 more/ }).waitFor();
    await page.getByTestId('task-table').getByRole('button', { name: 'spin', exact: true }).click();
    await page.getByTestId('task-panel').getByRole('heading', { name: 'spin' }).waitFor();
    // The diagram frames the chosen task.
    await page.locator('.box.box-selected[data-ref="spin"]').waitFor();
    await shot('big-run');
  });
});

describe('web UI in Chromium with authentication on', () => {
  const KEY_ID = 'ui-bootstrap-key';
  const KEY_SECRET = 'ui-bootstrap-secret-0123456789';
  let baton: BatonProcess;
  let browser: Browser;
  let page: Page;
  let helpers: Awaited<ReturnType<typeof batonProcess>>;
  let admin: string;

  const api = (p: string) => `${baton.url}${p}`;
  const as = async (token: string, method: string, p: string, body?: unknown) => {
    const answer = await helpers.http(method, api(p), body, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.ok(answer.status >= 200 && answer.status < 300, `${method} ${p}: ${answer.status} ${answer.text}`);
    return answer;
  };
  const signIn = async (keyId: string, keySecret: string) => {
    await page.getByLabel('Key id').fill(keyId);
    await page.getByLabel('Key secret').fill(keySecret);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };

  before(async () => {
    helpers = await batonProcess();
    baton = await helpers.startBaton({
      name: 'ui-auth',
      env: { BATON_AUTH_BOOTSTRAP_KEY_ID: KEY_ID, BATON_AUTH_BOOTSTRAP_KEY_SECRET: KEY_SECRET },
    });
    const exchanged = await helpers.http('POST', api('/api/token'), { keyId: KEY_ID, keySecret: KEY_SECRET });
    admin = (exchanged.body as { token: string }).token;
    assert.ok(admin, 'the bootstrap key trades for a token');
    await as(admin, 'POST', '/api/metadata/taskdefs', [taskDef('ui_charge')]);
    await as(admin, 'POST', '/api/metadata/workflow', orderWorkflow);
    browser = await launchBrowser();
    page = await browser.context.newPage();
  });

  after(async () => {
    const exited = await Promise.race([
      baton?.exited,
      new Promise((r) => setTimeout(() => r(undefined), 10)),
    ]);
    if (exited || process.env.UI_TEST_LOGS)
      console.error(`the Baton process exited: ${JSON.stringify(exited)}\n${baton.logs()}`);
    await browser?.close();
    await baton?.stop();
  });

  it('says whether auth is on without a token, and who a token is with one', async () => {
    const open = await helpers.http('GET', api('/api/auth/session'));
    assert.equal(open.status, 200);
    assert.equal((open.body as any).authEnabled, true);
    assert.equal((open.body as any).caller, undefined);
    const mine = await as(admin, 'GET', '/api/auth/session');
    assert.equal((mine.body as any).caller.via, 'application');
    assert.ok((mine.body as any).caller.roles.includes('admin'));
    const bad = await helpers.http('GET', api('/api/auth/session'), undefined, {
      headers: { authorization: 'Bearer not-a-token' },
    });
    assert.equal(bad.status, 401);
    assert.match((bad.body as any).message, /malformed/);
  });

  it('signs in with the bootstrap key, stays signed in on reload, and trades the key again for a refused token', async () => {
    await page.goto(api('/runs'));
    await page.getByRole('form', { name: 'Sign in' }).waitFor();
    await shotOf(page, 'sign-in');
    await signIn(KEY_ID, 'wrong-secret-0123456789');
    await page
      .getByRole('alert')
      .getByText(/key id and secret/)
      .waitFor();
    await signIn(KEY_ID, KEY_SECRET);
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    await page.getByTestId('caller').waitFor({ state: 'attached' });
    // Every section is there for an admin.
    const nav = page.getByRole('navigation', { name: 'Sections' });
    for (const section of ['Definitions', 'Queues & workers', 'Schedules', 'Event handlers', 'Instructions'])
      await nav.getByRole('link', { name: section, exact: true }).waitFor();
    // The token is kept for the tab: a reload stays signed in.
    await page.reload();
    await page.getByTestId('caller').waitFor({ state: 'attached' });
    // A token the server refuses (expired, revoked): the key, held in memory since sign-in, is
    // traded again and the request answered without asking the person.
    await signOutAndIn();
    await page.evaluate("sessionStorage.setItem('baton.token', 'expired.token.value')");
    await nav.getByRole('link', { name: 'Queues & workers', exact: true }).click();
    await page.locator('tr[data-queue="ui_charge"]').waitFor();
    await helpers.waitFor(
      async () =>
        (await page.evaluate("sessionStorage.getItem('baton.token')")) !== 'expired.token.value' || undefined,
      { ...WAIT, what: 'a new token in place of the refused one' },
    );
    await page.getByTestId('caller').waitFor({ state: 'attached' });
  });

  async function signOutAndIn(): Promise<void> {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('form', { name: 'Sign in' }).waitFor();
    await signIn(KEY_ID, KEY_SECRET);
    await page.getByTestId('caller').waitFor({ state: 'attached' });
  }

  it('shows a caller with only the workflow role no section or action its roles do not allow', async () => {
    const app = (await as(admin, 'POST', '/api/applications', { name: 'ui-viewer' })).body as { id: string };
    await as(admin, 'POST', `/api/applications/${app.id}/roles/workflow`);
    const key = (await as(admin, 'POST', `/api/applications/${app.id}/accessKeys`)).body as {
      id: string;
      secret: string;
    };
    const id = (
      await as(admin, 'POST', '/api/workflow', {
        name: 'ui_order',
        input: { orderId: 'R-1', kind: 'standard' },
        correlationId: 'read-only-1',
      })
    ).text.trim();
    // Work the charge task so the run waits for a person.
    const task: any = await helpers.waitFor(
      async () => {
        const answer = await helpers.http(
          'GET',
          api('/api/tasks/poll/ui_charge?workerid=ui-auth-worker'),
          undefined,
          {
            headers: { authorization: `Bearer ${admin}` },
          },
        );
        return answer.status === 200 ? answer.body : undefined;
      },
      { ...WAIT, what: 'the charge task to poll' },
    );
    await as(admin, 'POST', '/api/tasks', {
      taskId: task.taskId,
      workflowInstanceId: id,
      status: 'COMPLETED',
      outputData: {},
      workerId: 'ui-auth-worker',
    });

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.goto(api('/runs'));
    await signIn(key.id, key.secret);
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Sections' });
    await nav.getByRole('link', { name: 'Runs' }).waitFor();
    for (const section of ['Definitions', 'Queues & workers', 'Schedules', 'Event handlers', 'Instructions'])
      assert.equal(
        await nav.getByRole('link', { name: section, exact: true }).count(),
        0,
        `${section} is hidden`,
      );

    await page.goto(api(`/runs/${id}?task=approve`));
    const panel = page.getByTestId('task-panel');
    await panel
      .getByTestId('needs-role')
      .getByText(/needs the role 'task'/)
      .waitFor();
    // The instruction is still there to read.
    await panel
      .getByText('Check the parcel for order R-1, then approve shipping.', { exact: true })
      .waitFor();
    assert.equal(
      await panel.getByRole('button', { name: 'Submit' }).count(),
      0,
      'no completing without the task role',
    );
    await shotOf(page, 'read-only-run');
  });
});

describe('web UI in Chromium signing in at an identity provider (authorization code with PKCE)', () => {
  const AUDIENCE = 'https://baton.ui.test/api';
  let baton: BatonProcess;
  let browser: Browser;
  let page: Page;
  let idp: Awaited<ReturnType<Awaited<ReturnType<typeof oidcProvider>>['startOidcProvider']>>;

  before(async () => {
    const helpers = await batonProcess();
    // The provider must know where to send people back before Baton (which needs the issuer) starts.
    const port = await helpers.freePort();
    idp = await (
      await oidcProvider()
    ).startOidcProvider({
      audience: AUDIENCE,
      clients: [
        {
          id: 'baton-ui',
          secret: '',
          claims: { roles: ['metadata', 'workflow'] },
          redirectUri: `http://127.0.0.1:${port}/auth/callback`,
        },
      ],
    });
    baton = await helpers.startBaton({
      name: 'ui-oidc',
      port,
      env: {
        BATON_AUTH_ISSUER: idp.issuer,
        BATON_AUTH_AUDIENCE: AUDIENCE,
        BATON_AUTH_UI_CLIENT_ID: 'baton-ui',
        BATON_AUTH_UI_SCOPE: 'openid api',
      },
    });
    browser = await launchBrowser();
    page = await browser.context.newPage();
  });

  after(async () => {
    if (process.env.UI_TEST_LOGS) console.error(baton.logs());
    await browser?.close();
    await baton?.stop();
    await idp?.stop();
  });

  it('signs in at the provider and comes back to the page it left, with the roles of its token', async () => {
    await page.goto(`${baton.url}/definitions`);
    await page.getByRole('form', { name: 'Sign in' }).waitFor();
    await page.getByRole('button', { name: /^Sign in with 127\.0\.0\.1/ }).click();
    // The provider's own (development) sign-in and consent pages.
    await page.locator('input[name="login"]').fill('ada');
    await page.locator('input[name="password"]').fill('any');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${baton.url}/definitions`);
    await page.getByRole('heading', { name: 'Workflow definitions' }).waitFor();
    assert.equal(await page.getByTestId('caller').textContent(), 'ada');
    const nav = page.getByRole('navigation', { name: 'Sections' });
    await nav.getByRole('link', { name: 'Definitions', exact: true }).waitFor();
    assert.equal(await nav.getByRole('link', { name: 'Schedules', exact: true }).count(), 0);
    // The token is the provider's, checked by Baton like any other.
    const token = String(await page.evaluate("sessionStorage.getItem('baton.token')"));
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as {
      iss: string;
      aud: string | string[];
    };
    assert.equal(payload.iss, idp.issuer);
  });
});

/** True in the page once every diagram on it is laid out and framed (`data-fitted`). */
const EVERY_DIAGRAM_FITTED =
  '[...document.querySelectorAll(\'[data-testid="diagram"]\')].every((d) => d.dataset.fitted)';

/** A picture of the page for the README, once a diagram on it is laid out (in a worker). */
async function shotOf(page: Page, name: string): Promise<void> {
  // Only the picture depends on the layout: a slow one is photographed as it is.
  await page.waitForFunction(EVERY_DIAGRAM_FITTED, undefined, { timeout: 15_000 }).catch(() => undefined);
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

/** Waits until every diagram on the page is laid out and framed. */
async function diagramFitted(page: Page): Promise<void> {
  await page.waitForFunction(
    `document.querySelector('[data-testid="diagram"]') !== null && ${EVERY_DIAGRAM_FITTED}`,
  );
}

/** The corners of an arrow drawn by the diagram (M, L and Q commands), in order. */
function pointsOf(d: string): Array<[number, number]> {
  const nums = (d.match(/-?\d+(?:\.\d+)?(?:e-?\d+)?/g) ?? []).map(Number);
  const out: Array<[number, number]> = [];
  for (let i = 0; i + 1 < nums.length; i += 2) out.push([nums[i]!, nums[i + 1]!]);
  return out;
}

/** Whether two arrows cross (touching at a shared end, or running along each other, is not crossing). */
function crosses(a: string, b: string): boolean {
  const pa = pointsOf(a);
  const pb = pointsOf(b);
  const orient = (p: [number, number], q: [number, number], r: [number, number]) =>
    Math.sign((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]));
  for (let i = 1; i < pa.length; i++) {
    for (let j = 1; j < pb.length; j++) {
      const [p1, p2, q1, q2] = [pa[i - 1]!, pa[i]!, pb[j - 1]!, pb[j]!];
      const o1 = orient(p1, p2, q1);
      const o2 = orient(p1, p2, q2);
      const o3 = orient(q1, q2, p1);
      const o4 = orient(q1, q2, p2);
      if (o1 * o2 < 0 && o3 * o4 < 0) return true;
    }
  }
  return false;
}
