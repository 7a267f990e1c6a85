/**
 * Who made and who last changed a stored document (workflow and task definitions, event
 * handlers, schedules). Any service that stores a caller's document stamps it here, keeping
 * `createdBy` of the version it replaces; what the caller wrote in those fields is ignored.
 */
export interface Authorship {
  createdBy?: string;
  updatedBy?: string;
}

export function stampAuthorship<T extends object>(
  doc: T,
  actor: string | undefined,
  existing?: Authorship,
): T & Authorship {
  if (actor === undefined) return doc;
  return { ...doc, createdBy: existing?.createdBy ?? actor, updatedBy: actor };
}

/** The actor to stamp for a request: its identity's subject, or none when authentication is off. */
export function actorOf(req: { identity?: { subject: string; via: string } }): string | undefined {
  return req.identity && req.identity.via !== 'anonymous' ? req.identity.subject : undefined;
}
