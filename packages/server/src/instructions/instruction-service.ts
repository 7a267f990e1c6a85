import type { Instruction } from '@baton/protocol';

import type { Clock } from '../clock.js';
import { MAX_VERSION, nextVersion } from '../bounds/ranges.js';
import { fail } from '../errors.js';
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
        throw fail('INSTRUCTION_VERSION_LIMIT', { name: input.name, max: MAX_VERSION });
      const row: InstructionRow = {
        name: input.name,
        version,
        text: input.text,
        contentType: input.contentType ?? 'text/plain',
        createTime: now,
      };
      if (!(await tx.events.insertInstruction(row)))
        throw fail('INSTRUCTION_VERSION_EXISTS', { name: input.name, version });
      return view(row);
    });
  }

  async get(name: string, version?: number): Promise<Instruction> {
    const row = await this.store.read((tx) => tx.events.getInstruction(name, version));
    if (!row)
      throw version === undefined
        ? fail('INSTRUCTION_NOT_FOUND', { name })
        : fail('INSTRUCTION_VERSION_NOT_FOUND', { name, version });
    return view(row);
  }

  async list(): Promise<Instruction[]> {
    return (await this.store.read((tx) => tx.events.listInstructions())).map(view);
  }

  async remove(name: string, version: number): Promise<void> {
    const deleted = await this.store.transaction((tx) => tx.events.deleteInstruction(name, version));
    if (!deleted) throw fail('INSTRUCTION_VERSION_NOT_FOUND', { name, version });
  }
}
