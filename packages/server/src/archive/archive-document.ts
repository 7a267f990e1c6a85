import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';

import type { RunRecord, TaskLog, TaskRecord, WorkflowMessage } from '@baton/protocol';

/**
 * A whole run as one document in blob storage (docs/design/payloads-and-archive.md#the-archive):
 * the run record with its definition snapshot, every task, every log line and the mailbox. Stored
 * gzip-compressed JSON; the SHA-256 of the compressed bytes is kept in the run's index row and
 * checked on every read.
 */
export interface ArchiveDocument {
  format: 'baton-run-archive';
  version: 1;
  run: RunRecord;
  tasks: TaskRecord[];
  logs: TaskLog[];
  messages: WorkflowMessage[];
}

export function archiveDocument(
  run: RunRecord,
  tasks: TaskRecord[],
  logs: TaskLog[],
  messages: WorkflowMessage[],
): ArchiveDocument {
  return { format: 'baton-run-archive', version: 1, run, tasks, logs, messages };
}

export function encodeArchive(doc: ArchiveDocument): Buffer {
  return gzipSync(Buffer.from(JSON.stringify(doc), 'utf8'));
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export class ArchiveCorruptError extends Error {
  override name = 'ArchiveCorruptError';
}

/** Decodes a stored document, refusing bytes whose hash is not the recorded one. */
export function decodeArchive(bytes: Buffer, expectedSha256: string, workflowId: string): ArchiveDocument {
  if (sha256(bytes) !== expectedSha256) {
    throw new ArchiveCorruptError(
      `the archived document of run ${workflowId} does not match its recorded hash`,
    );
  }
  const doc = JSON.parse(gunzipSync(bytes).toString('utf8')) as ArchiveDocument;
  if (doc.format !== 'baton-run-archive' || doc.run.workflowId !== workflowId) {
    throw new ArchiveCorruptError(`the archived document of run ${workflowId} is not that run's`);
  }
  return doc;
}

/** Where a run's document goes: by the month it ended, so a bucket listing stays browsable. */
export function archiveKey(run: RunRecord): string {
  const ended = new Date(run.endTime > 0 ? run.endTime : run.updateTime);
  const month = `${ended.getUTCFullYear()}/${String(ended.getUTCMonth() + 1).padStart(2, '0')}`;
  return `archive/${month}/${run.workflowId}.json.gz`;
}
