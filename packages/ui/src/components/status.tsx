/** The colour of a status is the same everywhere: on badges, diagram nodes, the timeline. */

export type Tone = 'running' | 'ok' | 'failed' | 'warn' | 'paused' | 'idle' | 'skipped';

export function toneOf(status: string | undefined): Tone {
  switch (status) {
    case 'RUNNING':
    case 'IN_PROGRESS':
    case 'SCHEDULED':
      return 'running';
    case 'COMPLETED':
      return 'ok';
    case 'COMPLETED_WITH_ERRORS':
    case 'TIMED_OUT':
      return 'warn';
    case 'FAILED':
    case 'FAILED_WITH_TERMINAL_ERROR':
    case 'TERMINATED':
      return 'failed';
    case 'PAUSED':
      return 'paused';
    case 'CANCELED':
    case 'SKIPPED':
      return 'skipped';
    case undefined:
    default:
      return 'idle';
  }
}

export function StatusBadge({ status, small }: { status: string; small?: boolean }) {
  return (
    <span className={`badge tone-${toneOf(status)}${small ? ' badge-small' : ''}`} data-status={status}>
      {status.replace(/_/g, ' ')}
    </span>
  );
}
