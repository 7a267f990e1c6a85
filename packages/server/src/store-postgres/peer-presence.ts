/**
 * Whether any other node may be listening for queue notifications. A node wakes its own waiting
 * polls in-process; NOTIFY after a commit is only for the long polls of other nodes, and with
 * none there it is a round trip to nobody (about 3 % of a legacy step's CPU, docs/PERFORMANCE.md).
 *
 * Two sources, so that a node is never left out for long:
 *   - a check of the database's sessions (`check`), at most once per `ttlMs` and only when there
 *     is something to send: it sees every other node's listening connection, old releases' too;
 *   - a hello: a node whose listener starts NOTIFYs on a channel of its own (queue-listener.ts),
 *     and every node listening hears it and notifies from then on, without waiting for its next
 *     check. A node that starts is therefore NOTIFYed from its first long poll on, but for the
 *     few milliseconds its hello takes to arrive, which its polls' deadlines cover as they cover
 *     any lost notification.
 * A check that fails counts as "others may listen": a notification too many costs little.
 */
export class PeerPresence {
  private known: { others: boolean; at: number } | undefined;
  private checking: Promise<boolean> | undefined;
  /** Hellos heard so far: a check under way when one arrives must not undo it. */
  private hellos = 0;

  constructor(
    private readonly check: () => Promise<boolean>,
    private readonly options: { ttlMs?: number; now?: () => number } = {},
  ) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** Another node's listener has started: there is someone to notify. */
  heard(): void {
    this.hellos++;
    this.known = { others: true, at: this.now() };
  }

  /** Whether to send: the last answer while it is fresh, else a new check (one at a time). */
  othersMayListen(): Promise<boolean> {
    const known = this.known;
    if (known && this.now() - known.at < (this.options.ttlMs ?? 5_000)) return Promise.resolve(known.others);
    if (this.checking) return this.checking;
    const hellos = this.hellos;
    const checking = this.check().then(
      (others) => {
        const now = others || this.hellos !== hellos;
        this.known = { others: now, at: this.now() };
        return now;
      },
      () => true,
    );
    this.checking = checking;
    void checking.finally(() => {
      if (this.checking === checking) this.checking = undefined;
    });
    return checking;
  }
}
