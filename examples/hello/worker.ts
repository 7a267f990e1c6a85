/**
 * The worker of the hello example: takes `greet` tasks from Baton and answers a greeting.
 *
 *   npm run build && npm run hello-worker -w examples     (BATON_URL, BATON_TOKEN as for the CLI)
 *
 * A run without `who` fails for good (TerminalError: not retried); `who: "flaky"` fails the
 * first attempt (a plain error: retried) and succeeds on the next.
 */
import { BatonClient, TerminalError, defineWorker, runWorkers } from '@baton/sdk';

interface GreetInput {
  who?: string;
}
interface GreetOutput {
  greeting: string;
}

const greet = defineWorker<GreetInput, GreetOutput>({
  taskType: 'greet',
  concurrency: 4,
  handler: ({ who }, ctx) => {
    if (typeof who !== 'string' || who.trim() === '') {
      throw new TerminalError('who is required: start the run with --input \'{"who": "someone"}\'');
    }
    if (who === 'flaky' && ctx.attempt === 1) throw new Error('flaky on purpose: the next attempt succeeds');
    ctx.log(`greeting ${who} (attempt ${ctx.attempt})`);
    return { greeting: `hello, ${who}` };
  },
});

const baseUrl = process.env.BATON_URL ?? 'http://127.0.0.1:8080';
const token = process.env.BATON_TOKEN;
const keyId = process.env.BATON_KEY_ID;
const keySecret = process.env.BATON_KEY_SECRET;
const client = new BatonClient({
  baseUrl,
  ...(token ? { credentials: { token } } : keyId && keySecret ? { credentials: { keyId, keySecret } } : {}),
});

runWorkers({
  client,
  workers: [greet],
  onEvent: (event) => {
    if (event.type === 'task-done') console.log(`${event.taskType} ${event.taskId} ${event.status}`);
    if (event.type === 'error') console.error(`${event.taskType}: ${event.during}: ${event.error.message}`);
  },
});
console.log(`hello worker polling ${baseUrl} for greet tasks (Ctrl-C stops it gracefully)`);
