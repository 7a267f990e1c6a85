import type { ValidationError, WorkflowTask } from '@baton/protocol';

import { walkTasks } from '../../engine/index.js';
import type { Tx } from '../../store/store.js';
import { operationsOf } from '../connector/openapi-document.js';
import type { ServiceKind, ServiceRecord } from './service-record.js';

/**
 * Registration checks that need the registry: a definition that names a service, a tool, a
 * connector or an operation (as literal text, not an expression) names one that exists. Each
 * problem carries its path (`tasks[2].inputParameters.operation`).
 */

const literal = (value: unknown): value is string =>
  typeof value === 'string' && value !== '' && !value.includes('${');

interface Reference {
  field: 'service' | 'connector';
  kind: ServiceKind;
  /** The field naming the method of the service, if the type has one. */
  method?: 'tool' | 'operation';
}

const REFERENCES: Readonly<Record<string, Reference>> = {
  CALL_TOOL: { field: 'service', kind: 'mcp', method: 'tool' },
  LIST_TOOLS: { field: 'service', kind: 'mcp' },
  CONNECTOR: { field: 'connector', kind: 'connector', method: 'operation' },
  DOCUMENT_INTELLIGENCE: { field: 'service', kind: 'document-intelligence' },
};

export async function checkServiceReferences(tx: Tx, def: unknown): Promise<ValidationError[]> {
  if (def === null || typeof def !== 'object' || !Array.isArray((def as { tasks?: unknown }).tasks))
    return [];
  const uses: Array<{ path: string; node: WorkflowTask; ref: Reference }> = [];
  walkTasks((def as { tasks: unknown[] }).tasks, (task, path) => {
    if (task === null || typeof task !== 'object') return;
    const node = task as WorkflowTask;
    const ref = typeof node.type === 'string' ? REFERENCES[node.type] : undefined;
    if (ref) uses.push({ path, node, ref });
  });
  if (uses.length === 0) return [];
  const records = new Map<string, ServiceRecord | undefined>();
  const errors: ValidationError[] = [];
  for (const { path, node, ref } of uses) {
    const input = (node.inputParameters ?? {}) as Record<string, unknown>;
    const name = input[ref.field];
    if (!literal(name)) continue;
    if (!records.has(name)) {
      const row = await tx.getService(name);
      records.set(name, row && (row.record as unknown as ServiceRecord));
    }
    const record = records.get(name);
    const at = `${path}.inputParameters.${ref.field}`;
    if (!record) {
      errors.push({
        path: at,
        message: `service '${name}' is not registered (POST /api/registry/service)`,
        invalidValue: name,
      });
      continue;
    }
    if (record.kind !== ref.kind) {
      errors.push({
        path: at,
        message: `service '${name}' is a ${record.kind} service; ${String(node.type)} needs ${ref.kind}`,
        invalidValue: name,
      });
      continue;
    }
    const method = ref.method && input[ref.method];
    if (!ref.method || !literal(method)) continue;
    const known =
      record.kind === 'connector'
        ? operationsOf(record.openApi ?? {}).map((op) => op.operationId)
        : (Array.isArray(record.methods) ? record.methods : []).map((m) => m.operationName);
    // An MCP service with no tools registered has not said what it offers: its tools are found at call time.
    if (record.kind === 'mcp' && known.length === 0) continue;
    if (!known.includes(method)) {
      errors.push({
        path: `${path}.inputParameters.${ref.method}`,
        message: `service '${name}' has no ${ref.method} '${method}' (known: ${known.slice(0, 20).join(', ') || 'none'})`,
        invalidValue: method,
      });
    }
  }
  return errors;
}
