import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type {
  EventAction,
  EventHandler,
  NamedKeys,
  RerunRequest,
  ScheduleStartRequest,
  SkipRequest,
  TestRunRequest,
  WorkflowSchedule,
  WORKFLOW_SCHEDULE_ANSWER_ONLY_FIELDS,
} from '@baton/protocol';

import type { paths } from '../src/generated/openapi.js';

/**
 * The protocol's body types against the SDK's types generated from the server's OpenAPI
 * document: checked by the compiler, so a field added to one side only fails the build. (The
 * server's suite checks the document against the protocol's field lists at run time.)
 */

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type JsonBody<P extends keyof paths, M extends 'post' | 'put'> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

type ScheduleBody = JsonBody<'/api/schedule', 'post'>;
type HandlerBody = JsonBody<'/api/event', 'put'>;
type ActionBody = HandlerBody['actions'][number];
type AnswerOnly = (typeof WORKFLOW_SCHEDULE_ANSWER_ONLY_FIELDS)[number];

// Same field names on both sides (fields the server sets are answered, not taken).
const scheduleFields: Equal<NamedKeys<ScheduleBody>, Exclude<NamedKeys<WorkflowSchedule>, AnswerOnly>> = true;
const startFields: Equal<
  NamedKeys<ScheduleBody['startWorkflowRequest']>,
  NamedKeys<ScheduleStartRequest>
> = true;
const handlerFields: Equal<NamedKeys<HandlerBody>, NamedKeys<EventHandler>> = true;
const actionFields: Equal<NamedKeys<ActionBody>, NamedKeys<EventAction>> = true;
const actionKinds: Equal<ActionBody['action'], EventAction['action']> = true;
const rerunFields: Equal<
  NamedKeys<JsonBody<'/api/workflow/{workflowId}/rerun', 'post'>>,
  NamedKeys<RerunRequest>
> = true;
const skipFields: Equal<
  NamedKeys<JsonBody<'/api/workflow/{workflowId}/skiptask/{ref}', 'put'>>,
  NamedKeys<SkipRequest>
> = true;
const testRunFields: Equal<
  NamedKeys<JsonBody<'/api/workflow/test', 'post'>>,
  NamedKeys<TestRunRequest>
> = true;

// And a protocol value is a body the server takes as it is.
const scheduleIsBody = (s: WorkflowSchedule): ScheduleBody => s;
const handlerIsBody = (h: EventHandler): HandlerBody => h;

void describe('protocol body types and the generated API types', () => {
  it('agree (checked when this file compiles)', () => {
    assert.deepEqual(
      [
        scheduleFields,
        startFields,
        handlerFields,
        actionFields,
        actionKinds,
        rerunFields,
        skipFields,
        testRunFields,
      ],
      [true, true, true, true, true, true, true, true],
    );
    assert.equal(typeof scheduleIsBody, 'function');
    assert.equal(typeof handlerIsBody, 'function');
  });
});
