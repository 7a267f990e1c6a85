/**
 * Blob settings as the configuration module validated them. Declared here, where they are read,
 * so that configuration depends on no room it configures; `blobs/` opens a store from them.
 */
export type BlobSettings =
  | { kind: 'filesystem'; directory: string }
  | {
      kind: 's3';
      bucket: string;
      prefix: string;
      region: string;
      endpoint?: string;
      forcePathStyle: boolean;
      credentials?: { accessKeyId: string; secretAccessKey: string };
    };
