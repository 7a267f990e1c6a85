import type { EffectiveTaskDef } from './task-config.js';

export type RetrySettings = Pick<
  EffectiveTaskDef,
  'retryLogic' | 'retryDelaySeconds' | 'backoffScaleFactor' | 'maxRetryDelaySeconds' | 'backoffJitterMs'
>;

/**
 * Delay before the next attempt, in whole seconds, without jitter (Conductor's
 * `DeciderService.retry`). `retryCount` is the failed attempt's retryCount (0 for the first).
 *  - FIXED: retryDelaySeconds
 *  - LINEAR_BACKOFF: retryDelaySeconds × backoffScaleFactor × (retryCount + 1)
 *  - EXPONENTIAL_BACKOFF: retryDelaySeconds × 2^retryCount
 * capped by maxRetryDelaySeconds when that is above 0.
 */
export function retryDelaySeconds(settings: RetrySettings, retryCount: number): number {
  const base = settings.retryDelaySeconds;
  let delay: number;
  switch (settings.retryLogic) {
    case 'FIXED':
      delay = base;
      break;
    case 'LINEAR_BACKOFF':
      delay = base * settings.backoffScaleFactor * (retryCount + 1);
      break;
    case 'EXPONENTIAL_BACKOFF':
      delay = base * 2 ** retryCount;
      break;
  }
  if (!Number.isFinite(delay)) delay = Number.MAX_SAFE_INTEGER;
  if (settings.maxRetryDelaySeconds > 0) delay = Math.min(delay, settings.maxRetryDelaySeconds);
  return Math.max(0, delay);
}

/** Full delay in milliseconds: the delay above plus jitter `floor(random() × backoffJitterMs)`. */
export function retryDelayMs(settings: RetrySettings, retryCount: number, random: () => number): number {
  const jitter = settings.backoffJitterMs > 0 ? Math.floor(random() * settings.backoffJitterMs) : 0;
  return retryDelaySeconds(settings, retryCount) * 1000 + jitter;
}
