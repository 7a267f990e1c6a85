import type { JsonObject } from '@baton/protocol';

import type { CallContext, CallOutcome } from '../call-handler.js';
import { SecretMasker } from './secret-masker.js';
import { SecretUnavailableError } from './secret-service.js';

/**
 * The secrets of one call, as a handler uses them: the references the definition wrote are
 * replaced through the executor's `ctx.resolveSecrets` (in the copy that goes out only), a
 * registered service's credentials are read by name, and every value read, and every value
 * derived from one (a `Basic …` header), is remembered so the outcome is masked before the
 * executor stores it: output, reason, logs and waitingFor.
 */
export class CallSecrets {
  private masker = new SecretMasker();

  constructor(private readonly ctx: Pick<CallContext, 'resolveSecrets' | 'secretValues'>) {}

  /** The values of these secrets (names without the `${workflow.secrets.}` wrapping). */
  async values(names: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (names.length === 0) return out;
    const found = await this.ctx.secretValues(names);
    for (const name of names) {
      const value = found.get(name);
      if (value === undefined) {
        throw new SecretUnavailableError(
          `Secret '${name}' could not be resolved (is BATON_SECRETS_KEY set and the secret stored?)`,
        );
      }
      out.set(name, value);
    }
    this.masker = this.masker.with(out.values());
    return out;
  }

  /** A copy of `value` with the definition's secret references replaced; the values put in are masked in the outcome. */
  resolve<T extends JsonObject>(value: T): Promise<T> {
    return this.ctx.resolveSecrets(value, (values) => this.hide(...values));
  }

  /** Values derived from secrets (an encoded header) that must be masked too. */
  hide(...derived: string[]): void {
    this.masker = this.masker.with(derived);
  }

  text(text: string): string {
    return this.masker.text(text);
  }

  json<T extends JsonObject>(value: T): T {
    return this.masker.json(value);
  }

  /** The outcome with every secret value (and derived value) replaced by `***`. */
  outcome(outcome: CallOutcome): CallOutcome {
    if (this.masker.empty) return outcome;
    const logs = outcome.logs && { logs: outcome.logs.map((l) => this.text(l)) };
    switch (outcome.status) {
      case 'COMPLETED':
        return { status: outcome.status, output: this.json(outcome.output), ...logs };
      case 'IN_PROGRESS':
        return {
          status: outcome.status,
          checkAfterSeconds: outcome.checkAfterSeconds,
          output: this.json(outcome.output),
          waitingFor: this.text(outcome.waitingFor),
          ...logs,
        };
      case 'FAILED':
      case 'FAILED_WITH_TERMINAL_ERROR':
        return {
          status: outcome.status,
          reason: this.text(outcome.reason),
          ...(outcome.output && { output: this.json(outcome.output) }),
          ...logs,
        };
    }
  }
}
