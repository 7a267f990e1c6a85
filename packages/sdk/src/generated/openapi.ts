/**
 * The Baton HTTP API as TypeScript types, generated from GET /api/openapi.json by
 * packages/sdk/scripts/generate.mjs. Do not edit: run `npm run generate -w packages/sdk`.
 */
/* eslint-disable */
export interface paths {
    "/api/admin/config": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Non-secret settings */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/env": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Configuration keys Baton reads */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/queues": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Counts per worker queue */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/repair/{workflowId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Re-queue the run's open worker tasks whose message is missing or dead-lettered. Answers {workflowId, status, requeued, unchanged} */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workflowId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/requeue/{taskType}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Reopen every dead-lettered task of this type as a new attempt; a run it failed returns to RUNNING. Answers {taskType, requeued, skipped} */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    taskType: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Health of the database and engine loops */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/metadata/taskdefs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List task definitions */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        /** Update an existing task definition */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        backoffJitterMs?: number;
                        backoffScaleFactor?: number;
                        concurrentExecLimit?: number;
                        description?: string;
                        inputSchema?: {
                            [key: string]: unknown;
                        };
                        inputTemplate?: {
                            [key: string]: unknown;
                        };
                        maxRetryDelaySeconds?: number;
                        name?: string;
                        outputSchema?: {
                            [key: string]: unknown;
                        };
                        pollTimeoutSeconds?: number;
                        rateLimitFrequencyInSeconds?: number;
                        rateLimitPerFrequency?: number;
                        responseTimeoutSeconds?: number;
                        retryCount?: number;
                        retryDelaySeconds?: number;
                        /** @enum {string} */
                        retryLogic?: "FIXED" | "LINEAR_BACKOFF" | "EXPONENTIAL_BACKOFF";
                        /** @enum {string} */
                        timeoutPolicy?: "RETRY" | "TIME_OUT_WF" | "ALERT_ONLY";
                        timeoutSeconds?: number;
                        totalTimeoutSeconds?: number;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        /** Register task definitions (a list, or one); each creates its worker queue */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": ({
                        backoffJitterMs?: number;
                        backoffScaleFactor?: number;
                        concurrentExecLimit?: number;
                        description?: string;
                        inputSchema?: {
                            [key: string]: unknown;
                        };
                        inputTemplate?: {
                            [key: string]: unknown;
                        };
                        maxRetryDelaySeconds?: number;
                        name?: string;
                        outputSchema?: {
                            [key: string]: unknown;
                        };
                        pollTimeoutSeconds?: number;
                        rateLimitFrequencyInSeconds?: number;
                        rateLimitPerFrequency?: number;
                        responseTimeoutSeconds?: number;
                        retryCount?: number;
                        retryDelaySeconds?: number;
                        /** @enum {string} */
                        retryLogic?: "FIXED" | "LINEAR_BACKOFF" | "EXPONENTIAL_BACKOFF";
                        /** @enum {string} */
                        timeoutPolicy?: "RETRY" | "TIME_OUT_WF" | "ALERT_ONLY";
                        timeoutSeconds?: number;
                        totalTimeoutSeconds?: number;
                    } & {
                        [key: string]: unknown;
                    })[] | ({
                        backoffJitterMs?: number;
                        backoffScaleFactor?: number;
                        concurrentExecLimit?: number;
                        description?: string;
                        inputSchema?: {
                            [key: string]: unknown;
                        };
                        inputTemplate?: {
                            [key: string]: unknown;
                        };
                        maxRetryDelaySeconds?: number;
                        name?: string;
                        outputSchema?: {
                            [key: string]: unknown;
                        };
                        pollTimeoutSeconds?: number;
                        rateLimitFrequencyInSeconds?: number;
                        rateLimitPerFrequency?: number;
                        responseTimeoutSeconds?: number;
                        retryCount?: number;
                        retryDelaySeconds?: number;
                        /** @enum {string} */
                        retryLogic?: "FIXED" | "LINEAR_BACKOFF" | "EXPONENTIAL_BACKOFF";
                        /** @enum {string} */
                        timeoutPolicy?: "RETRY" | "TIME_OUT_WF" | "ALERT_ONLY";
                        timeoutSeconds?: number;
                        totalTimeoutSeconds?: number;
                    } & {
                        [key: string]: unknown;
                    });
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/metadata/taskdefs/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a task definition */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put?: never;
        post?: never;
        /** Remove a task definition */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/metadata/workflow": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List every version of every definition */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        /** Register or replace several workflow definitions (all or nothing) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": ({
                        description?: string;
                        failureWorkflow?: string;
                        inputParameters?: string[];
                        inputTemplate?: {
                            [key: string]: unknown;
                        };
                        name?: string;
                        outputParameters?: {
                            [key: string]: unknown;
                        };
                        ownerEmail?: string;
                        restartable?: boolean;
                        schemaVersion?: number;
                        tasks?: ({
                            asyncComplete?: boolean;
                            description?: string;
                            inputParameters?: {
                                [key: string]: unknown;
                            };
                            name?: string;
                            optional?: boolean;
                            retryCount?: number;
                            startDelay?: number;
                            taskReferenceName?: string;
                            type?: string;
                        } & {
                            [key: string]: unknown;
                        })[];
                        /** @enum {string} */
                        timeoutPolicy?: "TIME_OUT_WF" | "ALERT_ONLY";
                        timeoutSeconds?: number;
                        variables?: {
                            [key: string]: unknown;
                        };
                        version?: number;
                    } & {
                        [key: string]: unknown;
                    })[];
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        /** Register a workflow definition (next version when none is given) */
        post: {
            parameters: {
                query?: {
                    overwrite?: boolean;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        description?: string;
                        failureWorkflow?: string;
                        inputParameters?: string[];
                        inputTemplate?: {
                            [key: string]: unknown;
                        };
                        name?: string;
                        outputParameters?: {
                            [key: string]: unknown;
                        };
                        ownerEmail?: string;
                        restartable?: boolean;
                        schemaVersion?: number;
                        tasks?: ({
                            asyncComplete?: boolean;
                            description?: string;
                            inputParameters?: {
                                [key: string]: unknown;
                            };
                            name?: string;
                            optional?: boolean;
                            retryCount?: number;
                            startDelay?: number;
                            taskReferenceName?: string;
                            type?: string;
                        } & {
                            [key: string]: unknown;
                        })[];
                        /** @enum {string} */
                        timeoutPolicy?: "TIME_OUT_WF" | "ALERT_ONLY";
                        timeoutSeconds?: number;
                        variables?: {
                            [key: string]: unknown;
                        };
                        version?: number;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/metadata/workflow/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a definition (latest version when none is given) */
        get: {
            parameters: {
                query?: {
                    version?: number;
                };
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/metadata/workflow/{name}/{version}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove one version (refused while runs of it exist) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                    version: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/metadata/workflow/validate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Check a workflow definition without storing it */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        description?: string;
                        failureWorkflow?: string;
                        inputParameters?: string[];
                        inputTemplate?: {
                            [key: string]: unknown;
                        };
                        name?: string;
                        outputParameters?: {
                            [key: string]: unknown;
                        };
                        ownerEmail?: string;
                        restartable?: boolean;
                        schemaVersion?: number;
                        tasks?: ({
                            asyncComplete?: boolean;
                            description?: string;
                            inputParameters?: {
                                [key: string]: unknown;
                            };
                            name?: string;
                            optional?: boolean;
                            retryCount?: number;
                            startDelay?: number;
                            taskReferenceName?: string;
                            type?: string;
                        } & {
                            [key: string]: unknown;
                        })[];
                        /** @enum {string} */
                        timeoutPolicy?: "TIME_OUT_WF" | "ALERT_ONLY";
                        timeoutSeconds?: number;
                        variables?: {
                            [key: string]: unknown;
                        };
                        version?: number;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/tasks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Post a task result; answers the task id as text */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        callbackAfterSeconds?: number;
                        extendLease?: boolean;
                        logs?: (string | {
                            createdTime?: number;
                            log: string;
                            taskId?: string;
                        })[];
                        outputData?: {
                            [key: string]: unknown;
                        };
                        reasonForIncompletion?: string;
                        /** @enum {string} */
                        status: "IN_PROGRESS" | "COMPLETED" | "FAILED" | "FAILED_WITH_TERMINAL_ERROR";
                        taskId: string;
                        workerId?: string;
                        workflowId?: string;
                        workflowInstanceId?: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/tasks/{taskId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a task */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    taskId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/tasks/{taskId}/log": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A task's log lines */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    taskId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put?: never;
        /** Append a log line (raw text or a JSON string) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    taskId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/tasks/{workflowId}/{ref}/{status}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Complete (or fail) the open task with this reference name; the body is merged into its output */
        post: {
            parameters: {
                query?: {
                    count?: number;
                    domain?: string;
                    timeout?: number;
                    workerid?: string;
                    workerId?: string;
                };
                header?: never;
                path: {
                    ref: string;
                    status: "IN_PROGRESS" | "COMPLETED" | "FAILED" | "FAILED_WITH_TERMINAL_ERROR";
                    workflowId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/tasks/{workflowId}/{status}/signal": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Conductor's task signal: the first blocked task of the run ends with this status and output */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    status: "COMPLETED" | "FAILED" | "FAILED_WITH_TERMINAL_ERROR";
                    workflowId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/tasks/poll/{taskType}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Take one task; bare 204 when none */
        get: {
            parameters: {
                query?: {
                    count?: number;
                    domain?: string;
                    timeout?: number;
                    workerid?: string;
                    workerId?: string;
                };
                header?: never;
                path: {
                    taskType: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/tasks/poll/batch/{taskType}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Take up to count tasks, waiting up to timeout ms (≤ 5000) for work; [] when none */
        get: {
            parameters: {
                query?: {
                    count?: number;
                    domain?: string;
                    timeout?: number;
                    workerid?: string;
                    workerId?: string;
                };
                header?: never;
                path: {
                    taskType: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/tasks/queue/all": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Waiting count per queue (Conductor's shape) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/tasks/queue/polldata": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Last poll time per worker of a task type; active = polled in the last 10 s */
        get: {
            parameters: {
                query: {
                    taskType: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/tasks/queue/polldata/all": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Last poll time per worker, all types */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/tasks/queue/sizes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Waiting, scheduled, in-flight and dead-lettered counts per queue, with worker liveness */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/tasks/update-v2": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Post a task result; answers the next task of the same type, or a bare 204 */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        callbackAfterSeconds?: number;
                        extendLease?: boolean;
                        logs?: (string | {
                            createdTime?: number;
                            log: string;
                            taskId?: string;
                        })[];
                        outputData?: {
                            [key: string]: unknown;
                        };
                        reasonForIncompletion?: string;
                        /** @enum {string} */
                        status: "IN_PROGRESS" | "COMPLETED" | "FAILED" | "FAILED_WITH_TERMINAL_ERROR";
                        taskId: string;
                        workerId?: string;
                        workflowId?: string;
                        workflowInstanceId?: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflow": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start a run (Conductor's StartWorkflowRequest, with name); answers the run id as text */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        correlationId?: string;
                        idempotencyKey?: string;
                        /** @enum {string} */
                        idempotencyStrategy?: "FAIL" | "RETURN_EXISTING";
                        input?: {
                            [key: string]: unknown;
                        };
                        name: string;
                        priority?: number;
                        taskToDomain?: {
                            [key: string]: string;
                        };
                        version?: number;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflow/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start a run of the named definition; answers the run id as text */
        post: {
            parameters: {
                query?: {
                    correlationId?: string;
                    priority?: number;
                    version?: number;
                };
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        correlationId?: string;
                        idempotencyKey?: string;
                        /** @enum {string} */
                        idempotencyStrategy?: "FAIL" | "RETURN_EXISTING";
                        input?: {
                            [key: string]: unknown;
                        };
                        name?: string;
                        priority?: number;
                        taskToDomain?: {
                            [key: string]: string;
                        };
                        version?: number;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflow/{name}/correlated/{correlationId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Runs of a definition sharing a correlation id */
        get: {
            parameters: {
                query?: {
                    includeClosed?: boolean;
                    includeTasks?: boolean;
                };
                header?: never;
                path: {
                    correlationId: string;
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflow/{workflowId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a run with its tasks, inputs and outputs */
        get: {
            parameters: {
                query?: {
                    includeTasks?: boolean;
                };
                header?: never;
                path: {
                    workflowId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put?: never;
        post?: never;
        /** Terminate a RUNNING or PAUSED run: open tasks CANCELED, messages removed (409 once ended) */
        delete: {
            parameters: {
                query?: {
                    reason?: string;
                };
                header?: never;
                path: {
                    workflowId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflow/{workflowId}/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Append a message to the run's mailbox; answers the message id as text (409 once ended) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workflowId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflow/{workflowId}/pause": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Pause a RUNNING run: nothing new is scheduled (409 otherwise) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workflowId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflow/{workflowId}/rerun": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Rerun an ended run from a task: a new run (rerun_of); answers its id as text */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workflowId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        reRunFromTaskId?: string;
                        reRunFromTaskRefName?: string;
                        taskInput?: {
                            [key: string]: unknown;
                        };
                        workflowInput?: {
                            [key: string]: unknown;
                        };
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflow/{workflowId}/resetcallbacks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Make the run's delayed worker messages (callbacks, retry and start delays) visible now; 204 (Conductor's answer) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workflowId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflow/{workflowId}/restart": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Restart an ended run: a new run (restart_of) with the same input; answers its id as text */
        post: {
            parameters: {
                query?: {
                    useLatestDefinitions?: boolean;
                };
                header?: never;
                path: {
                    workflowId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflow/{workflowId}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Resume a PAUSED run; it moves on at once (409 otherwise) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workflowId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflow/{workflowId}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Retry a FAILED, TIMED_OUT or TERMINATED run: a new run (retry_of) reusing completed tasks; answers its id as text */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workflowId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflow/{workflowId}/signal": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Append a message and wake the run: the first blocked WAIT, HUMAN or PULL_WORKFLOW_MESSAGES task completes with it (or, when none is, one in a running child run); answers {messageId, taskId, workflowId} */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workflowId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflow/{workflowId}/skiptask/{ref}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Skip a waiting (or not yet reached) task with the given output; the run continues */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    ref: string;
                    workflowId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        taskInput?: {
                            [key: string]: unknown;
                        };
                        taskOutput?: {
                            [key: string]: unknown;
                        };
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflow/{workflowId}/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Status of a run */
        get: {
            parameters: {
                query?: {
                    includeOutput?: boolean;
                    includeVariables?: boolean;
                };
                header?: never;
                path: {
                    workflowId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflow/{workflowId}/terminate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Terminate a RUNNING or PAUSED run: open tasks CANCELED, messages removed (409 once ended) */
        post: {
            parameters: {
                query?: {
                    reason?: string;
                };
                header?: never;
                path: {
                    workflowId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflow/bulk/{operation}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** The same operation over up to 1000 runs; answers {bulkSuccessfulResults, bulkErrorResults} */
        put: {
            parameters: {
                query?: {
                    reason?: string;
                    useLatestDefinitions?: boolean;
                };
                header?: never;
                path: {
                    operation: "pause" | "resume" | "restart" | "retry" | "terminate";
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": string[];
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        /** The same operation over up to 1000 runs; answers {bulkSuccessfulResults, bulkErrorResults} */
        post: {
            parameters: {
                query?: {
                    reason?: string;
                    useLatestDefinitions?: boolean;
                };
                header?: never;
                path: {
                    operation: "pause" | "resume" | "restart" | "retry" | "terminate";
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": string[];
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflow/execute/{name}/{version}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start a run and answer it once it ends or blocks, or when waitForSeconds runs out (version 0 = latest) */
        post: {
            parameters: {
                query?: {
                    requestId?: string;
                    waitForSeconds?: number;
                    waitUntilTaskRef?: string;
                };
                header?: never;
                path: {
                    name: string;
                    version: number;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        correlationId?: string;
                        idempotencyKey?: string;
                        /** @enum {string} */
                        idempotencyStrategy?: "FAIL" | "RETURN_EXISTING";
                        input?: {
                            [key: string]: unknown;
                        };
                        name?: string;
                        priority?: number;
                        taskToDomain?: {
                            [key: string]: string;
                        };
                        version?: number;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflow/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Search runs; answers {totalHits, results} */
        get: {
            parameters: {
                query?: {
                    correlationId?: string;
                    freeText?: string;
                    from?: string;
                    name?: string;
                    size?: number;
                    sort?: string | string[];
                    start?: number;
                    status?: string;
                    to?: string;
                    workflowType?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflow/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Test run: the interpreter on a throwaway store and a virtual clock, with mocked task results; answers the run with its tasks */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        correlationId?: string;
                        input?: {
                            [key: string]: unknown;
                        };
                        priority?: number;
                        taskRefToMockOutput?: {
                            [key: string]: ({
                                executionTime?: number;
                                output?: {
                                    [key: string]: unknown;
                                };
                                queueWaitTime?: number;
                                reasonForIncompletion?: string;
                                /** @enum {string} */
                                status?: "COMPLETED" | "FAILED" | "FAILED_WITH_TERMINAL_ERROR";
                            } & {
                                [key: string]: unknown;
                            })[];
                        };
                        taskToDomain?: {
                            [key: string]: string;
                        };
                        workflowDef: {
                            description?: string;
                            failureWorkflow?: string;
                            inputParameters?: string[];
                            inputTemplate?: {
                                [key: string]: unknown;
                            };
                            name?: string;
                            outputParameters?: {
                                [key: string]: unknown;
                            };
                            ownerEmail?: string;
                            restartable?: boolean;
                            schemaVersion?: number;
                            tasks?: ({
                                asyncComplete?: boolean;
                                description?: string;
                                inputParameters?: {
                                    [key: string]: unknown;
                                };
                                name?: string;
                                optional?: boolean;
                                retryCount?: number;
                                startDelay?: number;
                                taskReferenceName?: string;
                                type?: string;
                            } & {
                                [key: string]: unknown;
                            })[];
                            /** @enum {string} */
                            timeoutPolicy?: "TIME_OUT_WF" | "ALERT_ONLY";
                            timeoutSeconds?: number;
                            variables?: {
                                [key: string]: unknown;
                            };
                            version?: number;
                        } & {
                            [key: string]: unknown;
                        };
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Health of the database and engine loops */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Prometheus metrics (text exposition format) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: never;
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
