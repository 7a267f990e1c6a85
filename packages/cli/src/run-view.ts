import type { Workflow } from '@baton/sdk';

import { duration, paint, statusColour } from './output.js';
import { buildTree, renderTree } from './run-tree.js';

/** `baton show`: who the run is, where it stands, why it waits or failed, its tree and output. */
export function describeRun(run: Workflow, now: number, colour: boolean): string {
  const lines: string[] = [];
  const status = paint(run.status, statusColour(run.status), colour);
  lines.push(
    `${paint(run.workflowName, 'bold', colour)} v${run.workflowVersion}  ${run.workflowId}  ${status}`,
  );
  const started = run.startTime || run.createTime;
  const ended = run.endTime > 0 ? run.endTime : now;
  lines.push(
    `started ${new Date(started).toISOString()}  ${run.endTime > 0 ? 'took' : 'running for'} ${duration(ended - started)}` +
      (run.correlationId ? `  correlationId ${run.correlationId}` : ''),
  );
  for (const [link, target] of Object.entries(run.links ?? {})) {
    if (target !== undefined && (!Array.isArray(target) || target.length > 0)) {
      lines.push(`${link.replace('_', ' ')} ${Array.isArray(target) ? target.join(', ') : target}`);
    }
  }
  if (run.reasonForIncompletion) {
    lines.push(
      paint(
        `why it ${run.status === 'TERMINATED' ? 'was terminated' : 'failed'}: ${run.reasonForIncompletion}`,
        'red',
        colour,
      ),
    );
    if (run.failedReferenceTaskNames.length > 0)
      lines.push(`failed tasks: ${run.failedReferenceTaskNames.join(', ')}`);
  }
  for (const wait of run.waitingFor ?? []) {
    lines.push(
      paint(
        `waiting: ${wait.referenceTaskName ? `${wait.referenceTaskName}: ` : ''}${wait.message.replace(/^waiting: /, '')}`,
        'yellow',
        colour,
      ),
    );
  }
  lines.push('');
  lines.push(...renderTree(buildTree(run), now, colour));
  lines.push('');
  lines.push(`input:  ${JSON.stringify(run.input)}`);
  if (run.endTime > 0 || Object.keys(run.output).length > 0)
    lines.push(`output: ${JSON.stringify(run.output)}`);
  return lines.join('\n');
}
