import type { Instruction } from '@baton/protocol';

import type { Clock } from '../clock.js';
import { MAX_VERSION, nextVersion } from '../bounds/ranges.js';
import { conflict, notFound } from '../errors.js';
import type { InstructionRow, Store } from '../store/store.js';

export interface InstructionInput {
  name: string;
  version?: number;
  text: string;
  contentType?: string;
}

const view = (r: InstructionRow): Instruction => ({ ...r });

/**
 * Named, versioned instruction texts (`/api/metadata/instructions`). A version is never changed
 * once written: registering again makes the next version, and runs read the latest one when
 * their decision resolves `${instructions.NAME}` or a HUMAN task's `instructions`.
 */
export class InstructionService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  async register(input: InstructionInput): Promise<Instruction> {
    const now = this.clock.now();
    return this.store.transaction(async (tx) => {
      const version = input.version ?? nextVersion(await tx.events.latestInstructionVersion(input.name));
      if (version === undefined)
        throw conflict(
          `Instruction ${input.name} is at the highest version (${MAX_VERSION}); give a version`,
        );
      const row: InstructionRow = {
        name: input.name,
        version,
        text: input.text,
        contentType: input.contentType ?? 'text/plain',
        createTime: now,
      };
      if (!(await tx.events.insertInstruction(row)))
        throw conflict(`Instruction ${input.name} version ${version} already exists`);
      return view(row);
    });
  }

  async get(name: string, version?: number): Promise<Instruction> {
    const row = await this.store.read((tx) => tx.events.getInstruction(name, version));
    if (!row)
      throw notFound(
        version === undefined
          ? `No such instruction: ${name}`
          : `No such instruction: ${name} version ${version}`,
      );
    return view(row);
  }

  async list(): Promise<Instruction[]> {
    return (await this.store.read((tx) => tx.events.listInstructions())).map(view);
  }

  async remove(name: string, version: number): Promise<void> {
    const deleted = await this.store.transaction((tx) => tx.events.deleteInstruction(name, version));
    if (!deleted) throw notFound(`No such instruction: ${name} version ${version}`);
  }
}
