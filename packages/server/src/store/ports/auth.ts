import type { JsonObject } from '@baton/protocol';

import type { PortAccess } from './access.js';

/** A stored authentication record (an application, an access key, the token signing key). */
export interface AuthRecord {
  kind: AuthRecordKind;
  id: string;
  doc: JsonObject;
  createTime: number;
  updateTime: number;
}
export type AuthRecordKind = 'application' | 'access_key' | 'signing_key';

/** An operator's action on a run (pause, resume, terminate, retry, ...), with who and when. */
export interface RunAction {
  workflowId: string;
  action: string;
  /** The caller's identity (subject), or `anonymous` when authentication is off. */
  actor: string;
  at: number;
  detail?: JsonObject;
}

/** Authentication records and operator actions on runs. */
export interface AuthPort {
  getAuthRecord(kind: AuthRecordKind, id: string): Promise<AuthRecord | undefined>;
  listAuthRecords(kind: AuthRecordKind): Promise<AuthRecord[]>;
  /** Inserts; false (and nothing written) when that kind and id exist, so a race has one winner. */
  insertAuthRecord(record: AuthRecord): Promise<boolean>;
  /** Replaces the document of an existing record; false when there is none. */
  updateAuthRecord(kind: AuthRecordKind, id: string, doc: JsonObject, now: number): Promise<boolean>;
  deleteAuthRecord(kind: AuthRecordKind, id: string): Promise<boolean>;
  appendRunAction(action: RunAction): Promise<void>;
  /** A run's operator actions, oldest first. */
  getRunActions(workflowId: string): Promise<RunAction[]>;
}

/** Which `AuthPort` methods write (refused inside `read()`); every method is checked (tx-access.ts). */
export const AUTH_ACCESS = {
  getAuthRecord: 'read',
  listAuthRecords: 'read',
  insertAuthRecord: 'write',
  updateAuthRecord: 'write',
  deleteAuthRecord: 'write',
  appendRunAction: 'write',
  getRunActions: 'read',
} as const satisfies PortAccess<AuthPort>;
