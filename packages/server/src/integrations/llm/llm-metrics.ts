import { Counter, type Registry } from 'prom-client';

/**
 * Token usage of the model calls, per provider and model, on the server's registry
 * (`GET /metrics`): `baton_llm_tokens_total{provider, model, kind="prompt"|"completion"}` and
 * `baton_llm_calls_total{provider, model, outcome}`. A repeated attempt counts again: it is
 * billed again.
 */
export class LlmMetrics {
  private readonly tokens: Counter<'provider' | 'model' | 'kind'>;
  private readonly calls: Counter<'provider' | 'model' | 'outcome'>;

  constructor(registry: Registry) {
    this.tokens = new Counter({
      name: 'baton_llm_tokens_total',
      help: 'Tokens used by LLM task calls, by provider, model and kind (prompt, completion)',
      labelNames: ['provider', 'model', 'kind'],
      registers: [registry],
    });
    this.calls = new Counter({
      name: 'baton_llm_calls_total',
      help: 'LLM task calls, by provider, model and outcome (completed, rate_limited, failed)',
      labelNames: ['provider', 'model', 'outcome'],
      registers: [registry],
    });
  }

  used(provider: string, model: string, promptTokens: number, completionTokens: number): void {
    if (promptTokens > 0) this.tokens.inc({ provider, model, kind: 'prompt' }, promptTokens);
    if (completionTokens > 0) this.tokens.inc({ provider, model, kind: 'completion' }, completionTokens);
  }

  call(provider: string, model: string, outcome: 'completed' | 'rate_limited' | 'failed'): void {
    this.calls.inc({ provider, model, outcome });
  }
}
