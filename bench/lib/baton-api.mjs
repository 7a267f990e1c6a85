// The few calls of Baton's Conductor-compatible HTTP API a benchmark worker and starter make.

/** A client for the server at `url`. Each call throws on an unexpected answer. */
export function batonApi(url) {
  const post = (path, body) =>
    fetch(url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const expectOk = async (res, what) => {
    if (!res.ok) throw new Error(`${what}: ${res.status} ${await res.text()}`);
    return res;
  };
  return {
    url,
    async registerTaskDefs(defs) {
      await expectOk(await post('/api/metadata/taskdefs', defs), 'register task definitions');
    },
    async registerWorkflow(def) {
      await expectOk(await post('/api/metadata/workflow?overwrite=true', def), 'register workflow');
    },
    /** Starts a run of `name` with `input`; answers its id. */
    async startRun(name, input) {
      return (await expectOk(await post(`/api/workflow/${name}`, { input }), 'start')).text();
    },
    /** Answers up to `count` tasks of `taskType` (an empty array once `timeoutMs` passes). */
    async poll(taskType, { count = 1, timeoutMs = 1000, workerId = 'bench' } = {}) {
      const res = await fetch(
        `${url}/api/tasks/poll/batch/${taskType}?count=${count}&timeout=${timeoutMs}&workerid=${workerId}`,
      );
      return (await expectOk(res, 'poll')).json();
    },
    /** Completes `task` with `outputData`; answers the next task of its type, or undefined. */
    async completeAndTakeNext(task, outputData, workerId = 'bench') {
      const res = await post('/api/tasks/update-v2', {
        taskId: task.taskId,
        workflowInstanceId: task.workflowInstanceId,
        status: 'COMPLETED',
        outputData,
        workerId,
      });
      await expectOk(res, 'update-v2');
      return res.status === 204 ? undefined : res.json();
    },
  };
}
