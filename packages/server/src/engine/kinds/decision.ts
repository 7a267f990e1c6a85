import type { ValidationError } from '@baton/protocol';
import type { TaskKind } from './kind.js';
import { checkCases, checkScript, switchBehaviour } from './switch.js';

/**
 * DECISION, SWITCH's deprecated predecessor (Conductor's `DecisionTaskMapper`/`Decision`): the
 * case is `input[caseValueParam]`, or the value of the JavaScript `caseExpression`; output
 * `caseOutput: [case]`; an empty case falls back to `defaultCase`. Scheduling and branching are
 * SWITCH's (`switch.ts`), which reads the node's type for these differences.
 */
export const decisionKind: TaskKind = {
  kind: 'DECISION',
  ...switchBehaviour,
  check(node, path, cctx) {
    const errors: ValidationError[] = [];
    const param: unknown = node.caseValueParam;
    const expression: unknown = node.caseExpression;
    const hasParam = typeof param === 'string' && param !== '';
    const hasExpression = typeof expression === 'string' && expression.trim() !== '';
    if (!hasParam && !hasExpression) {
      errors.push({
        path: `${path}.caseValueParam`,
        message: `caseValueParam or caseExpression field is required for taskType: DECISION taskName: ${node.name}`,
      });
    } else if (!hasParam && typeof expression === 'string') {
      errors.push(...checkScript(expression, 'caseExpression', node, path, cctx));
    }
    errors.push(...checkCases(node, path));
    return errors;
  },
};
