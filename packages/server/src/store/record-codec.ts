import { Deflate, Inflate, deflateSync, inflateSync } from 'node:zlib';

import { ReusedZlib } from './reused-zlib.js';

/**
 * Packed records: the JSON text of a stored record, compressed for a row that is written once
 * and then mostly read (a task's final version, docs/design/payloads-and-archive.md, "Bytes per
 * step"). A record of a few hundred bytes gains little from compression on its own: most of it
 * is key names and usual values that every record repeats. A preset dictionary of those lets raw
 * deflate refer back to them from the first byte, so the bench's 795-byte task record packs into
 * about 240 bytes (with the checksums) where plain deflate gives 350.
 *
 * A packed record is one byte naming the dictionary (the codec version), then a zlib stream: its
 * header names the dictionary's checksum and its trailer the Adler-32 of the text, so a damaged
 * row fails its unpacking instead of reading as other text (10 bytes a row; a record kept as
 * JSON text had no check at all). Stored rows need their dictionary for as long as they exist, so
 * a version's dictionary never changes once released (a test pins it); a better one is a new
 * version, and every version ever written stays readable.
 */

/** Key names and values most task records hold. Deflate favours what lies nearest the end. */
const DICTIONARY_V1 = Buffer.from(
  [
    '"reasonForIncompletion":"',
    '"retriedTaskId":"',
    '"subWorkflowId":"',
    '"parentTaskId":"',
    '"correlationId":"',
    '"domain":',
    '"externalInputPayloadStoragePath":"',
    '"externalOutputPayloadStoragePath":"',
    '"startDelayInSeconds":',
    '"callbackAfterSeconds":',
    '"pollCount":',
    '"retryCount":',
    '"iteration":',
    '"executed":false',
    '"retried":true',
    '"traceparent":"00-',
    '"optional":false,',
    '"asyncComplete":false,',
    '"joinOn":[',
    '"forkTasks":[[',
    '"decisionCases":{',
    '"evaluatorType":"javascript","expression":"',
    '"type":"HTTP"',
    '"type":"SWITCH"',
    '"type":"FORK_JOIN"',
    '"type":"JOIN"',
    '"type":"INLINE"',
    '"type":"SUB_WORKFLOW"',
    '"${workflow.input.',
    '.output.',
    '"}',
    '"workflowPriority":',
    '"workflowVersion":',
    '"taskDefName":"',
    '"responseTimeoutSeconds":',
    '"scheduledTime":',
    '"endTime":',
    '"queueName":"',
    '"workerId":"',
    '"workflowTask":{"name":"',
    '","taskReferenceName":"',
    '","type":"SIMPLE","inputParameters":{',
    '"outputData":{',
    '"inputData":{',
  ].join(''),
);

const DICTIONARIES: ReadonlyMap<number, Buffer> = new Map([[1, DICTIONARY_V1]]);
/** The version new records are packed with. */
const CURRENT = 1;

/**
 * Small windows: a record is a few hundred bytes, and a smaller window makes each call's
 * set-up cheaper (about 17 µs a pack against 20 at the defaults) at no cost in size.
 */
const WINDOW_BITS = 11;
const MEM_LEVEL = 5;

/** The dictionary of version `version` (for the test that pins it). */
export function packDictionary(version: number): Buffer | undefined {
  return DICTIONARIES.get(version);
}

const PACK_OPTIONS = {
  level: 1,
  windowBits: WINDOW_BITS,
  memLevel: MEM_LEVEL,
  dictionary: DICTIONARY_V1,
} as const;

/** One deflate stream for every pack, and one inflate stream a dictionary (reused-zlib.ts). */
const packer = new ReusedZlib(
  () => new Deflate(PACK_OPTIONS),
  (input) => deflateSync(input, PACK_OPTIONS),
);
const unpackers = new Map(
  [...DICTIONARIES].map(([version, dictionary]) => {
    const options = { windowBits: WINDOW_BITS, dictionary };
    return [
      version,
      new ReusedZlib(
        () => new Inflate(options),
        (input) => inflateSync(input, options),
      ),
    ] as const;
  }),
);

/** `json` packed with the current dictionary. */
export function packRecord(json: string): Buffer {
  // A buffer of its own, not a slice of Node's shared 8 KB pool: whoever keeps the packed bytes
  // would hold the whole slab with them (when the node kept the buffers of the rows it wrote last,
  // a kept row took 2,312 bytes of heap and buffers with pooled slices, 1,590 without).
  return packer.toBuffer(Buffer.from(json, 'utf8'), CURRENT);
}

/** A packed record that cannot be read: named, never guessed at. */
export class PackedRecordError extends Error {
  override name = 'PackedRecordError';
}

/** The JSON text of a packed record; `what` names the row in the error if it cannot be read. */
export function unpackRecord(packed: Uint8Array, what: string): string {
  const version = packed[0];
  const unpacker = version === undefined ? undefined : unpackers.get(version);
  if (unpacker === undefined)
    throw new PackedRecordError(
      `${what}: its stored record is packed with codec ${version ?? '(none: empty)'}, which this release does not know`,
    );
  try {
    return unpacker.toText(packed.subarray(1));
  } catch (err) {
    throw new PackedRecordError(
      `${what}: its stored record does not unpack (${err instanceof Error ? err.message : String(err)})`,
    );
  }
}
