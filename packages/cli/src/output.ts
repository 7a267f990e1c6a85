import { formatDuration } from '@baton/protocol';
import type { WorkflowStatus } from '@baton/sdk';

/**
 * Exit codes: 0 ok (a run COMPLETED), 1 an error (server unreachable, refused request),
 * 2 a usage error, and for commands that wait on a run its end: 3 FAILED, 4 TIMED_OUT,
 * 5 TERMINATED, 6 still open (PAUSED or RUNNING when the command stopped waiting).
 */
export const EXIT = { ok: 0, error: 1, usage: 2, failed: 3, timedOut: 4, terminated: 5, open: 6 } as const;

export function exitCodeFor(status: WorkflowStatus): number {
  switch (status) {
    case 'COMPLETED':
      return EXIT.ok;
    case 'FAILED':
      return EXIT.failed;
    case 'TIMED_OUT':
      return EXIT.timedOut;
    case 'TERMINATED':
      return EXIT.terminated;
    case 'RUNNING':
    case 'PAUSED':
      return EXIT.open;
  }
}

/** Colours only on a terminal that wants them (NO_COLOR, FORCE_COLOR honoured). */
export function useColour(stream: NodeJS.WriteStream = process.stdout): boolean {
  if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '') return false;
  if (process.env.FORCE_COLOR !== undefined && process.env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true;
}

const CODES = { red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36, grey: 90, bold: 1 } as const;
export type Colour = keyof typeof CODES;

export function paint(text: string, colour: Colour, on = useColour()): string {
  return on ? `\u001b[${CODES[colour]}m${text}\u001b[0m` : text;
}

/** The colour of a run or task status. */
export function statusColour(status: string): Colour {
  if (status === 'COMPLETED' || status === 'COMPLETED_WITH_ERRORS') return 'green';
  if (status.startsWith('FAILED') || status === 'TIMED_OUT' || status === 'TERMINATED') return 'red';
  if (status === 'CANCELED' || status === 'SKIPPED') return 'grey';
  if (status === 'PAUSED' || status === 'SCHEDULED') return 'yellow';
  return 'cyan';
}

/** 850 ms, 12 s, 4 min 4 s, 2 h 3 min: the web UI's format (one implementation, in the protocol package). */
export function duration(ms: number): string {
  return formatDuration(ms);
}

/** Plain text width (without colour codes). */
export function visibleLength(text: string): number {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '').length;
}

/** Columns padded to their widest cell. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) =>
    Math.max(visibleLength(h), ...rows.map((r) => visibleLength(r[i] ?? ''))),
  );
  const line = (cells: string[]) =>
    cells
      .map((c, i) =>
        i === cells.length - 1 ? c : c + ' '.repeat(Math.max(0, (widths[i] ?? 0) - visibleLength(c))),
      )
      .join('  ')
      .trimEnd();
  return [line(header.map((h) => paint(h, 'bold'))), ...rows.map(line)].join('\n');
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function print(text: string): void {
  process.stdout.write(`${text}\n`);
}
