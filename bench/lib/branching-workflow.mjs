// The branching shape, for every system that can run it: a step; a fork of `branches` branches
// of two steps each, and their join; a switch on the run's parity whose two cases are one step
// each; a last step. Steps are numbered in the order a run reaches them: 0 is the first, branch b
// is 1 + 2b and 2 + 2b, the switch's case is 1 + 2 × branches (even and odd runs run different
// tasks under one number) and the last is 2 + 2 × branches.

/** The branches of the shape when nothing says otherwise. */
export const DEFAULT_BRANCHES = 4;

/** Worker steps a run of the shape takes. */
export function branchingStepCount(branches = DEFAULT_BRANCHES) {
  return 1 + 2 * branches + 2;
}

/**
 * The steps whose ends make step `k` ready: its hand-off runs from the last of them to its start.
 * The case after the switch waits for every branch's end (the join is the engine's).
 */
export function branchingStepsBefore(k, branches = DEFAULT_BRANCHES) {
  const caseStep = 1 + 2 * branches;
  if (k === 0) return [];
  if (k < caseStep) return [k % 2 === 1 ? 0 : k - 1];
  if (k === caseStep) return Array.from({ length: branches }, (_, b) => 2 + 2 * b);
  return [caseStep];
}

/**
 * The reference name of step `k` in a Baton definition of the shape; undefined for the switch's
 * case, which is 'even' or 'odd' by the run.
 */
export function branchingRefOf(k, branches = DEFAULT_BRANCHES) {
  const caseStep = 1 + 2 * branches;
  if (k === 0) return 'first';
  if (k < caseStep) return `b${Math.floor((k - 1) / 2)}${k % 2 === 1 ? 'a' : 'b'}`;
  return k === caseStep ? undefined : 'last';
}

/**
 * The shape as a Baton (Conductor) definition: SIMPLE tasks of `taskType`, a FORK_JOIN and its
 * JOIN, a SWITCH whose JavaScript expression `switchScript` answers 'even' or 'odd'.
 * `inputsOf(k, ref)` gives step k's inputParameters.
 */
export function branchingWorkflow({ name, taskType, switchScript, inputsOf, branches = DEFAULT_BRANCHES }) {
  const simple = (k, ref) => ({
    name: taskType,
    taskReferenceName: ref,
    type: 'SIMPLE',
    inputParameters: inputsOf(k, ref),
  });
  const caseStep = 1 + 2 * branches;
  const forkTasks = Array.from({ length: branches }, (_, b) => [
    simple(1 + 2 * b, branchingRefOf(1 + 2 * b, branches)),
    simple(2 + 2 * b, branchingRefOf(2 + 2 * b, branches)),
  ]);
  return {
    name,
    version: 1,
    schemaVersion: 2,
    ownerEmail: 'bench@example.com',
    tasks: [
      simple(0, 'first'),
      { name: 'fork', taskReferenceName: 'fork', type: 'FORK_JOIN', forkTasks },
      {
        name: 'join',
        taskReferenceName: 'join',
        type: 'JOIN',
        joinOn: forkTasks.map((branch) => branch.at(-1).taskReferenceName),
      },
      {
        name: 'parity',
        taskReferenceName: 'parity',
        type: 'SWITCH',
        evaluatorType: 'javascript',
        expression: switchScript,
        inputParameters: { run: '${workflow.input.run}' },
        decisionCases: { even: [simple(caseStep, 'even')], odd: [simple(caseStep, 'odd')] },
        defaultCase: [],
      },
      simple(caseStep + 1, 'last'),
    ],
    outputParameters: { last: '${last.output.data}' },
  };
}

/** The switch as the bench writes it: a JavaScript expression on the run number. */
export const PARITY_EXPRESSION = '$.run % 2 === 0 ? "even" : "odd"';
