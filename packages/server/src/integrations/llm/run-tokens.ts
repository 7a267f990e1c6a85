import type { Store } from '../../store/store.js';

/** The tokens a run's LLM tasks used so far, for the per-run token budget. */
export interface RunTokens {
  /** The sum of `tokenUsed` over the run's LLM tasks (every attempt, any status) but `exceptTaskId`. */
  usedBy(workflowId: string, exceptTaskId: string): Promise<number>;
}

const LLM_TYPES = new Set(['LLM_CHAT_COMPLETE', 'LLM_TEXT_COMPLETE', 'LLM_GENERATE_EMBEDDINGS']);

/** Reads the run's task rows: every attempt that answered is billed, so every one counts. */
export class StoredRunTokens implements RunTokens {
  constructor(private readonly store: Store) {}

  async usedBy(workflowId: string, exceptTaskId: string): Promise<number> {
    const tasks = await this.store.read((tx) => tx.getRunTasks(workflowId));
    let sum = 0;
    for (const task of tasks) {
      if (task.taskId === exceptTaskId || !LLM_TYPES.has(task.workflowTask.type ?? '')) continue;
      const used = task.outputData.tokenUsed;
      if (typeof used === 'number' && Number.isFinite(used) && used > 0) sum += used;
    }
    return sum;
  }
}
