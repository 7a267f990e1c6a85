import type { StartWorkflowRequest } from '@baton/protocol';

import { fail } from '../errors.js';
import type { Tx } from '../store/store.js';

/**
 * The idempotency of a start (docs/design/runs.md#idempotent-start): a key is unique per definition
 * name. The first start with a key claims it for its run, in the same transaction that makes the
 * run; a repeat answers that run's id (`RETURN_EXISTING`) or is refused with 409 (`FAIL`, also when
 * no strategy is given). Returns the id to answer instead of starting, or undefined to start.
 */
export async function claimStartKey(
  tx: Tx,
  name: string,
  request: Pick<StartWorkflowRequest, 'idempotencyKey' | 'idempotencyStrategy'>,
  workflowId: string,
  now: number,
): Promise<string | undefined> {
  const key = request.idempotencyKey;
  if (key === undefined) return undefined;
  const existing = await tx.claimIdempotencyKey(name, key, workflowId, now);
  if (existing === undefined) return undefined;
  if (request.idempotencyStrategy === 'RETURN_EXISTING') return existing;
  throw fail('IDEMPOTENCY_KEY_USED', { name, key, workflowId: existing });
}
