import type { Locator, Page, Request, Response } from 'playwright-core';

import type * as BatonProcessModule from '../../../server/test/helpers/baton-process.js';

/**
 * What the UI's browser suites share: the definitions they register, a small API client that
 * starts runs and acts as a worker, and the clicks that find a run, complete a person's task and
 * retry a run. One Baton process on SQLite and two PostgreSQL nodes behind one URL use the same.
 */

type Helpers = typeof BatonProcessModule;

export const WAIT = { timeoutMs: 30_000, intervalMs: 100 };

export const taskDef = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  retryCount: 0,
  retryDelaySeconds: 0,
  responseTimeoutSeconds: 30,
  timeoutSeconds: 0,
  ownerEmail: 'ops@example.com',
  ...extra,
});

/** An order: charge (worker), a switch on the kind, a fork of two branches, a short loop, a human approval. */
export const orderWorkflow = {
  name: 'ui_order',
  description: 'Charge, pack and ship an order, with a person approving express orders',
  version: 1,
  schemaVersion: 2,
  ownerEmail: 'ops@example.com',
  inputParameters: ['orderId', 'kind'],
  tasks: [
    {
      name: 'ui_charge',
      taskReferenceName: 'charge',
      type: 'SIMPLE',
      inputParameters: { orderId: '${workflow.input.orderId}' },
    },
    {
      name: 'route',
      taskReferenceName: 'route',
      type: 'SWITCH',
      evaluatorType: 'value-param',
      expression: 'kind',
      inputParameters: { kind: '${workflow.input.kind}' },
      decisionCases: {
        express: [
          {
            name: 'express_label',
            taskReferenceName: 'express_label',
            type: 'SET_VARIABLE',
            inputParameters: { label: 'express' },
          },
        ],
      },
      defaultCase: [
        {
          name: 'standard_label',
          taskReferenceName: 'standard_label',
          type: 'SET_VARIABLE',
          inputParameters: { label: 'standard' },
        },
      ],
    },
    {
      name: 'prepare',
      taskReferenceName: 'prepare',
      type: 'FORK_JOIN',
      forkTasks: [
        [
          {
            name: 'pack',
            taskReferenceName: 'pack',
            type: 'INLINE',
            inputParameters: { evaluatorType: 'javascript', expression: '"packed"' },
          },
        ],
        [
          {
            name: 'invoice',
            taskReferenceName: 'invoice',
            type: 'INLINE',
            inputParameters: { evaluatorType: 'javascript', expression: '"invoiced"' },
          },
        ],
      ],
    },
    { name: 'prepared', taskReferenceName: 'prepared', type: 'JOIN', joinOn: ['pack', 'invoice'] },
    {
      name: 'checks',
      taskReferenceName: 'checks',
      type: 'DO_WHILE',
      loopCondition: '$.checks.iteration < 3',
      inputParameters: {},
      loopOver: [
        {
          name: 'check',
          taskReferenceName: 'check',
          type: 'INLINE',
          inputParameters: { evaluatorType: 'javascript', expression: '1' },
        },
      ],
    },
    {
      name: 'approve',
      taskReferenceName: 'approve',
      type: 'HUMAN',
      description: 'Check the parcel and approve shipping',
      inputParameters: {
        instructions: 'Check the parcel for order ${workflow.input.orderId}, then approve shipping.',
      },
    },
  ],
  outputParameters: { approved: '${approve.output.approved}' },
};

export const oneStep = (name: string, type: string) => ({
  name,
  version: 1,
  schemaVersion: 2,
  ownerEmail: 'ops@example.com',
  tasks: [{ name: type, taskReferenceName: 'step', type: 'SIMPLE' }],
});

/** Talks to Baton's public API at `baseUrl()` (read late: the suites start Baton in `before`). */
export function apiClient(helpers: () => Helpers, baseUrl: () => string) {
  const api = (p: string) => `${baseUrl()}${p}`;
  const get = <T = any>(p: string) => helpers().getJson<T>(api(p));
  const post = (p: string, body: unknown) => helpers().httpOk('POST', api(p), body);
  const start = async (name: string, input: Record<string, unknown>, correlationId?: string) =>
    (
      await helpers().postText(api('/api/workflow'), {
        name,
        input,
        ...(correlationId && { correlationId }),
      })
    ).trim();
  /** Acts as a worker: takes one task of `type` and answers it. */
  const work = async (
    type: string,
    status: 'COMPLETED' | 'FAILED',
    outputData: Record<string, unknown> = {},
  ) => {
    const task: any = await helpers().waitFor(
      async () => {
        const answer = await helpers().http('GET', api(`/api/tasks/poll/${type}?workerid=ui-test-worker`));
        return answer.status === 200 ? answer.body : undefined;
      },
      { ...WAIT, what: `a ${type} task to poll` },
    );
    await post('/api/tasks', {
      taskId: task.taskId,
      workflowInstanceId: task.workflowInstanceId,
      status,
      outputData,
      ...(status === 'FAILED' && { reasonForIncompletion: 'the card was declined' }),
      workerId: 'ui-test-worker',
    });
    return task;
  };
  const runStatus = async (id: string, status: string) =>
    helpers().waitFor(async () => ((await get(`/api/workflow/${id}`)).status === status ? true : undefined), {
      ...WAIT,
      what: `run ${id} to be ${status}`,
    });
  return { api, get, post, start, work, runStatus };
}

/** Registers the definitions the run pages are tried on. */
export async function registerDefinitions(client: ReturnType<typeof apiClient>): Promise<void> {
  await client.post('/api/metadata/taskdefs', [
    taskDef('ui_charge'),
    taskDef('ui_flaky'),
    taskDef('ui_dead'),
    taskDef('ui_idle'),
  ]);
  await client.post('/api/metadata/workflow', orderWorkflow);
  await client.post('/api/metadata/workflow', oneStep('ui_fragile', 'ui_flaky'));
  await client.post('/api/metadata/workflow', oneStep('ui_deadletter', 'ui_dead'));
  await client.post('/api/metadata/workflow', oneStep('ui_unserved', 'ui_idle'));
}

/** On the runs page: searches by correlation id until exactly one row is left; answers its run id. */
export async function searchByCorrelation(page: Page, helpers: Helpers, correlationId: string) {
  await page.getByLabel('Correlation id').fill(correlationId);
  await page.getByRole('button', { name: 'Search' }).click();
  const rows = page.locator('tbody tr[data-run]');
  await helpers.waitFor(async () => ((await rows.count()) === 1 ? true : undefined), {
    ...WAIT,
    what: 'the search to narrow to one run',
  });
  return { rows, id: await rows.getAttribute('data-run') };
}

/**
 * Replaces the whole text of a code editor (CodeMirror): its own select-all, which its keymap
 * applies at once, then the text as typed input. Playwright's `fill` selects through the page's
 * DOM selection, which the editor takes in a moment later: on a loaded CI machine the text once
 * went in before the editor's template instead of over it.
 */
export async function replaceEditorText(editor: Locator, text: string): Promise<void> {
  await editor.click();
  await editor.press('Control+a');
  await editor.page().keyboard.insertText(text);
}

/**
 * Waits for `target` in a definition editor; if it never shows, fails with what the page had
 * instead: the problems list, the editor's text, each validation answer (or failed request) and
 * any error the page threw. Such a wait once timed out on a loaded CI machine with nothing said
 * about why, and did not fail again when run alone or beside busy cores.
 */
export async function waitInEditor(page: Page, target: Locator): Promise<void> {
  const seen: string[] = [];
  const validation = (url: string) => url.includes('/validate');
  const onResponse = (res: Response) => {
    if (validation(res.url())) seen.push(`${res.status()} ${res.request().method()} ${res.url()}`);
  };
  const onFailed = (req: Request) => {
    if (validation(req.url())) seen.push(`failed (${req.failure()?.errorText ?? '?'}) ${req.url()}`);
  };
  const onError = (err: Error) => seen.push(`page error: ${err.message}`);
  page.on('response', onResponse);
  page.on('requestfailed', onFailed);
  page.on('pageerror', onError);
  try {
    await target.waitFor();
  } catch (err) {
    const problems = await page
      .getByTestId('problems')
      .innerText()
      .catch(() => '(no problems panel)');
    const text = await page
      .locator('.cm-content')
      .innerText()
      .catch(() => '(no editor)');
    throw new Error(
      `${err instanceof Error ? err.message : String(err)}\nproblems panel: ${problems}\n` +
        `editor text: ${text.slice(0, 2_000)}\nvalidation seen: ${seen.join('; ') || '(nothing)'}`,
    );
  } finally {
    page.off('response', onResponse);
    page.off('requestfailed', onFailed);
    page.off('pageerror', onError);
  }
}

/** The order run's boxes once the charge is done and the approval waits. */
export async function orderBoxesAtApproval(page: Page): Promise<Record<string, string | null>> {
  await page.locator('.box[data-ref="charge"][data-state="COMPLETED"]').waitFor();
  await page.locator('.box[data-ref="approve"][data-state="IN_PROGRESS"]').waitFor();
  const states: Record<string, string | null> = {};
  for (const ref of ['express_label', 'standard_label', 'pack', 'prepared'])
    states[ref] = await page.locator(`.box[data-ref="${ref}"]`).getAttribute('data-state');
  return states;
}

/** In the task panel: fills the output and submits; waits for the run summary to say Completed. */
export async function submitTaskOutput(page: Page, panel: Locator, outputJson: string): Promise<void> {
  await panel.getByLabel(/Output \(JSON/).fill(outputJson);
  await panel.getByRole('button', { name: 'Submit' }).click();
  await page.getByTestId('waiting-for').getByRole('heading', { name: 'Completed' }).waitFor();
}

/** On a failed run's page: Retry, and answers the id of the run it leads to. */
export async function retryRun(page: Page, failed: string): Promise<string> {
  await page.getByRole('button', { name: 'Retry' }).click();
  await page.waitForURL((url) => !url.pathname.endsWith(failed) && url.pathname.startsWith('/runs/'));
  return decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
}

/** What orderBoxesAtApproval reads for an express order. */
export const ORDER_BOXES_AT_APPROVAL = {
  express_label: 'COMPLETED',
  standard_label: 'NOT_REACHED',
  pack: 'COMPLETED',
  prepared: 'COMPLETED',
};
