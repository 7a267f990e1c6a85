import type { EventExecution, EventHandler, JsonObject } from '@baton/protocol';

import { type Authorship, stampAuthorship } from '../auth/authorship.js';
import type { Clock } from '../clock.js';
import { settleScripts, type AsyncScriptRunner } from '../scripting/async-scripts.js';
import { fail } from '../errors.js';
import type { Page, Store } from '../store/store.js';
import { checkEventHandler } from './handler-model.js';

/** Managing event handlers (`/api/event`) and reading their executions. */
export class EventHandlerService {
  constructor(
    private readonly store: Store,
    private readonly scripts: AsyncScriptRunner,
    private readonly clock: Clock,
    /**
     * Called after a change commits and awaited, so when the request is answered this node
     * consumes exactly what the change says (other nodes follow through the change counter).
     */
    private readonly changed: () => Promise<void> = () => Promise.resolve(),
  ) {}

  async create(handler: EventHandler, actor?: string): Promise<void> {
    await this.check(handler);
    const now = this.clock.now();
    const inserted = await this.store.transaction((tx) =>
      tx.events.insertEventHandler(this.row(stampAuthorship(handler, actor), now, now)),
    );
    if (!inserted) throw fail('EVENT_HANDLER_EXISTS', { name: handler.name, note: '' });
    await this.changed();
  }

  /**
   * Adds a list of handlers (the form Orkes's SDKs send), all or nothing: every handler is
   * checked first, and one whose name exists (or repeats in the list) adds none of them.
   */
  async createAll(handlers: readonly EventHandler[], actor?: string): Promise<void> {
    // Each handler's scripts are checked off the event loop, one handler after another.
    const errors: Awaited<ReturnType<EventHandlerService['checkOne']>> = [];
    for (const [i, handler] of handlers.entries()) {
      for (const e of await this.checkOne(handler))
        errors.push({
          ...e,
          path: e.path.startsWith('body')
            ? `body[${i}]${e.path.slice('body'.length)}`
            : `body[${i}].${e.path}`,
          message: `handler ${i} (${handler.name}): ${e.message}`,
        });
    }
    const seen = new Set<string>();
    handlers.forEach((handler, i) => {
      if (seen.has(handler.name)) {
        const message = `handler ${i}: the name ${handler.name} appears more than once in the list`;
        errors.push({ path: `body[${i}].name`, message, invalidValue: handler.name });
      }
      seen.add(handler.name);
    });
    if (errors.length > 0)
      throw fail('EVENT_HANDLER_INVALID', { detail: errors.map((e) => e.message).join('; ') }, errors);
    const now = this.clock.now();
    await this.store.transaction(async (tx) => {
      for (const handler of handlers) {
        const inserted = await tx.events.insertEventHandler(
          this.row(stampAuthorship(handler, actor), now, now),
        );
        // Throwing rolls back the handlers of the list already inserted.
        if (!inserted)
          throw fail('EVENT_HANDLER_EXISTS', { name: handler.name, note: ' (none of the list was added)' });
      }
    });
    await this.changed();
  }

  async update(handler: EventHandler, actor?: string): Promise<void> {
    await this.check(handler);
    const now = this.clock.now();
    const updated = await this.store.transaction(async (tx) => {
      const existing = await tx.events.getEventHandler(handler.name);
      if (!existing) return false;
      // The first author and the creation time survive a replacement.
      const stamped = stampAuthorship(handler, actor, existing.handler as Authorship);
      return tx.events.updateEventHandler(this.row(stamped, existing.createTime, now));
    });
    if (!updated) throw fail('EVENT_HANDLER_NOT_FOUND', { name: handler.name });
    await this.changed();
  }

  async remove(name: string): Promise<void> {
    const deleted = await this.store.transaction((tx) => tx.events.deleteEventHandler(name));
    if (!deleted) throw fail('EVENT_HANDLER_NOT_FOUND', { name });
    await this.changed();
  }

  async list(): Promise<EventHandler[]> {
    return (await this.store.read((tx) => tx.events.listEventHandlers())).map(
      (s) => s.handler as unknown as EventHandler,
    );
  }

  async forEvent(event: string, activeOnly: boolean): Promise<EventHandler[]> {
    return (await this.list()).filter((h) => h.event === event && (!activeOnly || h.active === true));
  }

  async get(name: string): Promise<EventHandler> {
    const stored = await this.store.read((tx) => tx.events.getEventHandler(name));
    if (!stored) throw fail('EVENT_HANDLER_NOT_FOUND', { name });
    return stored.handler as unknown as EventHandler;
  }

  async executions(handler: string | undefined, start: number, size: number): Promise<Page<EventExecution>> {
    const page = await this.store.read((tx) => tx.events.listEventExecutions(handler, start, size));
    return {
      totalHits: page.totalHits,
      results: page.results.map((r) => r.record as unknown as EventExecution),
    };
  }

  private async check(handler: EventHandler): Promise<void> {
    const errors = await this.checkOne(handler);
    if (errors.length > 0)
      throw fail('EVENT_HANDLER_INVALID', { detail: errors.map((e) => e.message).join('; ') }, errors);
  }

  private checkOne(handler: EventHandler) {
    return settleScripts(this.scripts, (scripts) => checkEventHandler(handler, scripts));
  }

  private row(handler: EventHandler, createTime: number, updateTime: number) {
    const stored: EventHandler = { ...handler, active: handler.active === true };
    return {
      name: handler.name,
      event: handler.event,
      active: handler.active === true,
      handler: stored as unknown as JsonObject,
      createTime,
      updateTime,
    };
  }
}
