import { v7 as uuidv7 } from 'uuid';

/** Ids are UUIDv7: time-ordered, so new rows land at the end of primary-key indexes. */
export function newId(): string {
  return uuidv7();
}
