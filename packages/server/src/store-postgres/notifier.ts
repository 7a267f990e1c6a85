import { MAX_NOTIFY_PAYLOAD } from './queue-listener.js';

/**
 * Sends queue notifications after commit, coalesced: every name committed while a send is under
 * way goes out with the next one, so a busy node sends one statement per round trip rather than
 * one NOTIFY inside every transaction. A NOTIFY inside a transaction takes a lock that orders all
 * notifying commits of the whole server, which cut commit throughput by half or more; outside,
 * the notification is still sent only for committed work. It is a hint: other nodes also re-check
 * on their long-poll and timer deadlines, so a notification lost in a crash only delays them.
 * (This node wakes its own waiters in-process, without the round trip.)
 */
export class CoalescingNotifier {
  private pending = new Set<string>();
  private sending: Promise<void> | undefined;

  constructor(
    /** Sends the payloads (each within PostgreSQL's limit) in one statement. */
    private readonly send: (payloads: string[]) => Promise<void>,
    private readonly onError: (err: Error) => void,
  ) {}

  add(names: Iterable<string>): void {
    for (const name of names) this.pending.add(name);
    if (this.pending.size > 0) this.sending ??= this.loop();
  }

  /** Resolves once everything added so far has been sent (or failed). */
  async drain(): Promise<void> {
    while (this.sending) await this.sending;
  }

  private async loop(): Promise<void> {
    // Let the commits finishing in this turn of the event loop join the first send.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.pending.size > 0) {
      const names = [...this.pending].sort();
      this.pending = new Set();
      try {
        await this.send(payloadsOf(names));
      } catch (err) {
        this.onError(err instanceof Error ? err : new Error(String(err)));
      }
    }
    this.sending = undefined;
  }
}

/** Comma-joined names, split so that no payload passes PostgreSQL's limit. */
export function payloadsOf(names: readonly string[]): string[] {
  const payloads: string[] = [];
  let current = '';
  for (const name of names) {
    const next = current === '' ? name : `${current},${name}`;
    if (Buffer.byteLength(next) > MAX_NOTIFY_PAYLOAD && current !== '') {
      payloads.push(current);
      current = name;
    } else current = next;
  }
  if (current !== '') payloads.push(current);
  return payloads;
}
