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
    "/api/applications": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** All applications */
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
        /** Create an application (no roles, no keys yet) */
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
                        name: string;
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
    "/api/applications/{applicationId}/accessKeys/{keyId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete an access key (its tokens stop working within seconds) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    applicationId: string;
                    keyId: string;
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
    "/api/applications/{applicationId}/accessKeys/{keyId}/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Toggle an access key ACTIVE / INACTIVE */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    applicationId: string;
                    keyId: string;
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
    "/api/applications/{applicationId}/roles/{role}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Give an application a role: a group role, worker:<taskType>, or ADMIN / METADATA_MANAGER / WORKFLOW_MANAGER / UNRESTRICTED_WORKER */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    applicationId: string;
                    role: string;
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
        /** Take a role from an application */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    applicationId: string;
                    role: string;
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
    "/api/applications/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read an application */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
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
        /** Rename an application */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        name: string;
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
        /** Remove an application and its access keys */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
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
    "/api/applications/{id}/accessKeys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An application's access keys: {id, createdAt, status} */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
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
        /** Create an access key: answers {id, secret}; the secret is shown this once only */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
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
    "/api/applications/{id}/tags": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An application's tags */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
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
        /** Add tags to an application */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        key?: string;
                        type?: string;
                        value?: string;
                    }[];
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
        /** Remove tags from an application */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        key?: string;
                        type?: string;
                        value?: string;
                    }[];
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
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/applications/key/{accessKeyId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The application an access key belongs to */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    accessKeyId: string;
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
    "/api/auth/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Whether authentication is on, how to sign in, the role of each group, and (with a token) who the caller is and their roles */
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
                    content: {
                        "application/json": {
                            authEnabled: boolean;
                            /** @description absent when auth is on and no token was sent */
                            caller?: {
                                roles?: string[];
                                subject?: string;
                                /** @enum {string} */
                                via?: "oidc" | "application" | "anonymous";
                            };
                            /** @description the role each caller group needs (admin may do everything) */
                            groupRoles: {
                                admin?: string;
                                event?: string;
                                metadata?: string;
                                task?: string;
                                workflow?: string;
                            };
                            /** @description the identity provider, when one is configured */
                            issuer?: string;
                            /** @description a trace viewer's URL with {traceId}, when configured: the UI links a run to its trace */
                            traceUrlTemplate?: string;
                            /** @description the web UI's public client at the identity provider (authorization code with PKCE), when configured */
                            uiClient?: {
                                clientId?: string;
                                scope?: string;
                            };
                        };
                    };
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
    "/api/event": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every event handler */
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
        /** Replace an event handler (404 when missing) */
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
                        actions: {
                            /** @enum {string} */
                            action: "start_workflow" | "complete_task" | "fail_task" | "terminate_workflow" | "update_workflow_variables";
                            complete_task?: {
                                [key: string]: unknown;
                            };
                            expandInlineJSON?: boolean;
                            fail_task?: {
                                [key: string]: unknown;
                            };
                            start_workflow?: {
                                [key: string]: unknown;
                            };
                            terminate_workflow?: {
                                [key: string]: unknown;
                            };
                            update_workflow_variables?: {
                                [key: string]: unknown;
                            };
                        }[];
                        active?: boolean;
                        condition?: string;
                        description?: string;
                        evaluatorType?: string;
                        event: string;
                        name: string;
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
        /** Add an event handler, or a list of them (all or nothing); 409 when a name exists, and then none is added */
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
                        actions: {
                            /** @enum {string} */
                            action: "start_workflow" | "complete_task" | "fail_task" | "terminate_workflow" | "update_workflow_variables";
                            complete_task?: {
                                [key: string]: unknown;
                            };
                            expandInlineJSON?: boolean;
                            fail_task?: {
                                [key: string]: unknown;
                            };
                            start_workflow?: {
                                [key: string]: unknown;
                            };
                            terminate_workflow?: {
                                [key: string]: unknown;
                            };
                            update_workflow_variables?: {
                                [key: string]: unknown;
                            };
                        }[];
                        active?: boolean;
                        condition?: string;
                        description?: string;
                        evaluatorType?: string;
                        event: string;
                        name: string;
                    } | {
                        actions: {
                            /** @enum {string} */
                            action: "start_workflow" | "complete_task" | "fail_task" | "terminate_workflow" | "update_workflow_variables";
                            complete_task?: {
                                [key: string]: unknown;
                            };
                            expandInlineJSON?: boolean;
                            fail_task?: {
                                [key: string]: unknown;
                            };
                            start_workflow?: {
                                [key: string]: unknown;
                            };
                            terminate_workflow?: {
                                [key: string]: unknown;
                            };
                            update_workflow_variables?: {
                                [key: string]: unknown;
                            };
                        }[];
                        active?: boolean;
                        condition?: string;
                        description?: string;
                        evaluatorType?: string;
                        event: string;
                        name: string;
                    }[];
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
    "/api/event/{event}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The handlers of one event (`amqp:orders`) */
        get: {
            parameters: {
                query?: {
                    activeOnly?: boolean;
                };
                header?: never;
                path: {
                    event: string;
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
    "/api/event/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove an event handler */
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
    "/api/event/execution": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** What handlers did with messages: Conductor EventExecutions, newest first ({totalHits, results}) */
        get: {
            parameters: {
                query?: {
                    handler?: string;
                    size?: number;
                    start?: number;
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
    "/api/event/executions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** What handlers did with messages: Conductor EventExecutions, newest first ({totalHits, results}) */
        get: {
            parameters: {
                query?: {
                    handler?: string;
                    size?: number;
                    start?: number;
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
    "/api/event/handler/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One event handler by name (Orkes's getEventHandlerByName); 404 when there is none */
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
    "/api/integrations/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every integration (provider), optionally of one category or enabled only */
        get: {
            parameters: {
                query?: {
                    activeOnly?: boolean;
                    category?: string;
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
    "/api/integrations/all": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every provider's models as provider:model, optionally of one provider type or enabled only */
        get: {
            parameters: {
                query?: {
                    activeOnly?: boolean;
                    type?: string;
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
    "/api/integrations/def": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The provider kinds this server can run (AI models) */
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
    "/api/integrations/provider": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The integration providers (LLM providers), optionally of one category or enabled only */
        get: {
            parameters: {
                query?: {
                    activeOnly?: boolean;
                    category?: string;
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
    "/api/integrations/provider/{integration_provider}/integration/{integration_name}/prompt": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The prompt templates associated with a model */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    integration_name: string;
                    integration_provider: string;
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
    "/api/integrations/provider/{integration_provider}/integration/{integration_name}/prompt/{prompt_name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Associate a prompt template with a model */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    integration_name: string;
                    integration_provider: string;
                    prompt_name: string;
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
    "/api/integrations/provider/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One integration provider */
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
        /** Add or replace an LLM provider (type openai, azure_openai, ollama, anthropic, …); its API key names a secret */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        category?: string;
                        /** @description api_key: ${workflow.secrets.NAME}, or a key value (sealed into the secret store as LLM_<name>_API_KEY, never kept in the record); endpoint: the base URL; other provider settings */
                        configuration?: {
                            api_key?: string;
                            endpoint?: string;
                        };
                        description?: string;
                        enabled?: boolean;
                        type?: string;
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
        /** Remove an integration provider and its models */
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
    "/api/integrations/provider/{name}/integration": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A provider's models */
        get: {
            parameters: {
                query?: {
                    activeOnly?: boolean;
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
    "/api/integrations/provider/{name}/integration/{integration_name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One model of a provider */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    integration_name: string;
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
        /** Add or replace a model of a provider (a provider with models listed serves only those) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    integration_name: string;
                    name: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        configuration?: Record<string, unknown>;
                        description?: string;
                        enabled?: boolean;
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
        /** Remove a model of a provider */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    integration_name: string;
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
    "/api/integrations/provider/{name}/integration/{integration_name}/tags": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A model's tags */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    integration_name: string;
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
        /** Add tags to a model */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    integration_name: string;
                    name: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        key: string;
                        type?: string;
                        value: string;
                    }[];
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
        /** Remove tags (same key and value) from a model */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    integration_name: string;
                    name: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        key: string;
                        type?: string;
                        value: string;
                    }[];
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
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/integrations/provider/{name}/tags": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A provider's tags */
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
        /** Add tags to a provider */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        key: string;
                        type?: string;
                        value: string;
                    }[];
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
        /** Remove tags (same key and value) from a provider */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        key: string;
                        type?: string;
                        value: string;
                    }[];
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
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/metadata/instructions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every version of every instruction text */
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
        /** Register an instruction text (no version: the next one; an existing version: 409); answers it */
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
                        contentType?: string;
                        name: string;
                        text: string;
                        version?: number;
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
    "/api/metadata/instructions/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The latest version of an instruction text (or version=) */
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
    "/api/metadata/instructions/{name}/{version}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One version of an instruction text */
        get: {
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
        put?: never;
        post?: never;
        /** Delete one version of an instruction text */
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
                        ownerEmail?: string;
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
                        ownerEmail?: string;
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
                        ownerEmail?: string;
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
    "/api/metadata/taskdefs/validate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Check a task definition without storing it */
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
                        ownerEmail?: string;
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
        delete?: never;
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
    "/api/payloads/{*}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Download a payload from a signed URL answered by external-storage-location */
        get: {
            parameters: {
                query: {
                    expires: number;
                    op: "READ" | "WRITE";
                    signature: string;
                };
                header?: never;
                path: {
                    "*": string;
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
        /** Upload a payload to a signed URL answered by external-storage-location (filesystem store) */
        put: {
            parameters: {
                query: {
                    expires: number;
                    op: "READ" | "WRITE";
                    signature: string;
                };
                header?: never;
                path: {
                    "*": string;
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
    "/api/prompts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every prompt template */
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
    "/api/prompts/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One prompt template */
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
        /** Replace a prompt template (the body is its text) */
        put: {
            parameters: {
                query?: {
                    autoIncrement?: boolean;
                    description?: string;
                    models?: string[];
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
                    "application/json": string;
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
        /** Add or replace a prompt template (the body is its text; each save is a new version) */
        post: {
            parameters: {
                query?: {
                    autoIncrement?: boolean;
                    description?: string;
                    models?: string[];
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
                    "application/json": string;
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
        /** Remove a prompt template */
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
    "/api/prompts/{name}/tags": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A prompt template's tags */
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
        /** Add tags to a prompt template */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        key: string;
                        type?: string;
                        value: string;
                    }[];
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
        /** Remove tags (same key and value) from a prompt template */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        key: string;
                        type?: string;
                        value: string;
                    }[];
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
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/registry/service": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every registered service */
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
        /** Add or replace a service (MCP, connector with its OpenAPI 3 document, document intelligence) */
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
                        apiVersion?: string;
                        auth?: {
                            header?: string;
                            secret: string;
                            /** @enum {string} */
                            type: "bearer" | "apiKey" | "basic";
                            username?: string;
                            usernameSecret?: string;
                        };
                        circuitBreakerEnabled?: boolean;
                        config?: Record<string, unknown>;
                        description?: string;
                        headers?: {
                            [key: string]: string;
                        };
                        /** @enum {string} */
                        kind?: "mcp" | "connector" | "document-intelligence" | "grpc";
                        methods?: Record<string, unknown>[];
                        name: string;
                        openApi?: Record<string, unknown>;
                        requestParams?: unknown[];
                        serviceURI?: string;
                        /** @enum {string} */
                        type?: "MCP_REMOTE" | "HTTP" | "DOCUMENT_INTELLIGENCE" | "gRPC";
                        url?: string;
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
    "/api/registry/service/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One service */
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
        /** Remove a service */
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
    "/api/registry/service/{name}/circuit-breaker/close": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Close the circuit */
        post: {
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
                    content: {
                        "application/json": {
                            currentState?: string;
                            message?: string;
                            previousState?: string;
                            service?: string;
                            transitionTimestamp?: number;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/registry/service/{name}/circuit-breaker/open": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Open the circuit: calls fail fast until closed */
        post: {
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
                    content: {
                        "application/json": {
                            currentState?: string;
                            message?: string;
                            previousState?: string;
                            service?: string;
                            transitionTimestamp?: number;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/registry/service/{name}/circuit-breaker/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** State of the circuit breaker */
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
                    content: {
                        "application/json": {
                            currentState?: string;
                            message?: string;
                            previousState?: string;
                            service?: string;
                            transitionTimestamp?: number;
                        };
                    };
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
    "/api/registry/service/{name}/discover": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The methods of a service (a connector’s operations; an MCP service’s registered tools) */
        get: {
            parameters: {
                query?: {
                    create?: boolean;
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
    "/api/registry/service/{registryName}/methods": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Add or replace a method (an MCP tool) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    registryName: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        description?: string;
                        exampleInput?: unknown;
                        id?: number;
                        inputSchema?: Record<string, unknown>;
                        inputType?: string;
                        methodName?: string;
                        methodType?: string;
                        operationName?: string;
                        outputType?: string;
                        requestParams?: unknown[];
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
        /** Remove a method */
        delete: {
            parameters: {
                query?: {
                    method?: string;
                    methodName?: string;
                    methodType?: string;
                    serviceName?: string;
                };
                header?: never;
                path: {
                    registryName: string;
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
    "/api/schedule": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every schedule (of one workflow with workflowName=) */
        get: {
            parameters: {
                query?: {
                    workflowName?: string;
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
        /** Update a schedule (404 when missing) */
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
                        createdBy?: string;
                        cronExpression: string;
                        description?: string;
                        name: string;
                        paused?: boolean;
                        pausedReason?: string;
                        runCatchupScheduleInstances?: boolean;
                        scheduleEndTime?: number;
                        scheduleStartTime?: number;
                        startWorkflowRequest: {
                            correlationId?: string;
                            input?: {
                                [key: string]: unknown;
                            };
                            name: string;
                            priority?: number;
                            taskToDomain?: {
                                [key: string]: string;
                            };
                            version?: number;
                        };
                        updatedBy?: string;
                        zoneId?: string;
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
        /** Create or update a schedule; answers it */
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
                        createdBy?: string;
                        cronExpression: string;
                        description?: string;
                        name: string;
                        paused?: boolean;
                        pausedReason?: string;
                        runCatchupScheduleInstances?: boolean;
                        scheduleEndTime?: number;
                        scheduleStartTime?: number;
                        startWorkflowRequest: {
                            correlationId?: string;
                            input?: {
                                [key: string]: unknown;
                            };
                            name: string;
                            priority?: number;
                            taskToDomain?: {
                                [key: string]: string;
                            };
                            version?: number;
                        };
                        updatedBy?: string;
                        zoneId?: string;
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
    "/api/schedule/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One schedule */
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
        /** Remove a schedule */
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
    "/api/schedule/{name}/executions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A schedule's slots, newest first: {totalHits, results: [{executionId, scheduleName, scheduledTime, executionTime, workflowId, state, reason}]} */
        get: {
            parameters: {
                query?: {
                    size?: number;
                    start?: number;
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
    "/api/schedule/{name}/pause": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Pause a schedule (no slot fires until resumed) */
        get: {
            parameters: {
                query?: {
                    reason?: string;
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
        /** Pause a schedule (no slot fires until resumed) */
        put: {
            parameters: {
                query?: {
                    reason?: string;
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
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/schedule/{name}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Resume a schedule from now (slots of the pause are not owed) */
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
        /** Resume a schedule from now (slots of the pause are not owed) */
        put: {
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
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/schedule/executions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Slots of every schedule (or scheduleName=), newest first: {totalHits, results} */
        get: {
            parameters: {
                query?: {
                    freeText?: string;
                    query?: string;
                    scheduleName?: string;
                    size?: number;
                    sort?: string;
                    start?: number;
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
    "/api/schedule/nextFewSchedules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The next slots of a cron expression (epoch ms) */
        get: {
            parameters: {
                query: {
                    cronExpression: string;
                    limit?: number;
                    scheduleEndTime?: number;
                    scheduleStartTime?: number;
                    zoneId?: string;
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
    "/api/schedule/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Schedules by workflow, name, paused or free text: {totalHits, results} */
        get: {
            parameters: {
                query?: {
                    freeText?: string;
                    paused?: boolean;
                    scheduleName?: string;
                    size?: number;
                    sort?: string;
                    start?: number;
                    workflowName?: string;
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
    "/api/scheduler/admin/pause": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Stop firing schedules on this node (for debugging; other nodes keep firing them, each schedule keeps its own paused flag); answers {status: "done"} */
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
    "/api/scheduler/admin/requeue": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Conductor's requeue of pending execution records, in its shape ({"recordIds.size", sampleIds}): always none, because Baton writes a slot's execution record in the transaction that starts its run */
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
    "/api/scheduler/admin/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Fire schedules on this node again; answers {status: "done"} */
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
    "/api/scheduler/bulk/pause": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Pause several schedules */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
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
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/scheduler/bulk/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Resume several schedules */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
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
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/scheduler/nextFewSchedules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The next slots of a cron expression (epoch ms) */
        get: {
            parameters: {
                query: {
                    cronExpression: string;
                    limit?: number;
                    scheduleEndTime?: number;
                    scheduleStartTime?: number;
                    zoneId?: string;
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
    "/api/scheduler/schedules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every schedule (of one workflow with workflowName=) */
        get: {
            parameters: {
                query?: {
                    workflowName?: string;
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
        /** Update a schedule (404 when missing) */
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
                        createdBy?: string;
                        cronExpression: string;
                        description?: string;
                        name: string;
                        paused?: boolean;
                        pausedReason?: string;
                        runCatchupScheduleInstances?: boolean;
                        scheduleEndTime?: number;
                        scheduleStartTime?: number;
                        startWorkflowRequest: {
                            correlationId?: string;
                            input?: {
                                [key: string]: unknown;
                            };
                            name: string;
                            priority?: number;
                            taskToDomain?: {
                                [key: string]: string;
                            };
                            version?: number;
                        };
                        updatedBy?: string;
                        zoneId?: string;
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
        /** Create or update a schedule; answers it */
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
                        createdBy?: string;
                        cronExpression: string;
                        description?: string;
                        name: string;
                        paused?: boolean;
                        pausedReason?: string;
                        runCatchupScheduleInstances?: boolean;
                        scheduleEndTime?: number;
                        scheduleStartTime?: number;
                        startWorkflowRequest: {
                            correlationId?: string;
                            input?: {
                                [key: string]: unknown;
                            };
                            name: string;
                            priority?: number;
                            taskToDomain?: {
                                [key: string]: string;
                            };
                            version?: number;
                        };
                        updatedBy?: string;
                        zoneId?: string;
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
    "/api/scheduler/schedules/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One schedule */
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
        /** Remove a schedule */
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
    "/api/scheduler/schedules/{name}/executions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A schedule's slots, newest first: {totalHits, results: [{executionId, scheduleName, scheduledTime, executionTime, workflowId, state, reason}]} */
        get: {
            parameters: {
                query?: {
                    size?: number;
                    start?: number;
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
    "/api/scheduler/schedules/{name}/pause": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Pause a schedule (no slot fires until resumed) */
        get: {
            parameters: {
                query?: {
                    reason?: string;
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
        /** Pause a schedule (no slot fires until resumed) */
        put: {
            parameters: {
                query?: {
                    reason?: string;
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
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/scheduler/schedules/{name}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Resume a schedule from now (slots of the pause are not owed) */
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
        /** Resume a schedule from now (slots of the pause are not owed) */
        put: {
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
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/scheduler/schedules/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Schedules by workflow, name, paused or free text: {totalHits, results} */
        get: {
            parameters: {
                query?: {
                    freeText?: string;
                    paused?: boolean;
                    scheduleName?: string;
                    size?: number;
                    sort?: string;
                    start?: number;
                    workflowName?: string;
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
    "/api/scheduler/search/executions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Slots of every schedule (or scheduleName=), newest first: {totalHits, results} */
        get: {
            parameters: {
                query?: {
                    freeText?: string;
                    query?: string;
                    scheduleName?: string;
                    size?: number;
                    sort?: string;
                    start?: number;
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
    "/api/secrets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Names of the stored secrets (never values) */
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
                    content: {
                        "application/json": string[];
                    };
                };
            };
        };
        put?: never;
        /** Names of the stored secrets (Orkes form) */
        post: {
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
                    content: {
                        "application/json": string[];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/secrets-v2": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Stored secrets with their times (never values) */
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
                    content: {
                        "application/json": {
                            createTime?: number;
                            name?: string;
                            tags?: unknown[];
                            updateTime?: number;
                        }[];
                    };
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
    "/api/secrets/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A secret’s name and times (its value is never answered) */
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
                    content: {
                        "application/json": {
                            createTime?: number;
                            name?: string;
                            updateTime?: number;
                        };
                    };
                };
            };
        };
        /** Store or replace a secret (sealed with BATON_SECRETS_KEY; 409 when it is unset) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": string | {
                        value: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            createTime?: number;
                            name?: string;
                            updateTime?: number;
                        };
                    };
                };
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            createTime?: number;
                            name?: string;
                            updateTime?: number;
                        };
                    };
                };
            };
        };
        post?: never;
        /** Remove a secret */
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
    "/api/secrets/{name}/exists": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** true when the secret exists; 404 when it does not (as Orkes answers) */
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
                    content: {
                        "application/json": boolean;
                    };
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
                        externalOutputPayloadStoragePath?: string;
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
                    inlinePayloads?: boolean;
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
    "/api/tasks/{workflowId}/{ref}/{status}/sync": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Conductor's updateTaskSync: as the update by reference name, answering the run (with its tasks) after the update; 404 when no task of that reference is open */
        post: {
            parameters: {
                query?: {
                    count?: number;
                    domain?: string;
                    inlinePayloads?: boolean;
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
    "/api/tasks/{workflowId}/{status}/signal/sync": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Signal the run's first blocked task (as /signal) and answer the run or the task it now waits on (Orkes's returnStrategy); 404 when no task is blocked */
        post: {
            parameters: {
                query?: {
                    returnStrategy?: "TARGET_WORKFLOW" | "BLOCKING_WORKFLOW" | "BLOCKING_TASK" | "BLOCKING_TASK_INPUT";
                };
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
    "/api/tasks/external-storage-location": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A short-lived signed URL to upload (WRITE) or download (READ) a large payload; answers {uri, path} */
        get: {
            parameters: {
                query?: {
                    operation?: "READ" | "WRITE";
                    path?: string;
                    payloadType?: "WORKFLOW_INPUT" | "WORKFLOW_OUTPUT" | "TASK_INPUT" | "TASK_OUTPUT";
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
    "/api/tasks/externalstoragelocation": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A short-lived signed URL to upload (WRITE) or download (READ) a large payload; answers {uri, path} */
        get: {
            parameters: {
                query?: {
                    operation?: "READ" | "WRITE";
                    path?: string;
                    payloadType?: "WORKFLOW_INPUT" | "WORKFLOW_OUTPUT" | "TASK_INPUT" | "TASK_OUTPUT";
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
                    inlinePayloads?: boolean;
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
                    inlinePayloads?: boolean;
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
        /** Without taskType: waiting, scheduled, in-flight and dead-lettered counts per queue, with worker liveness. With taskType (repeated, or comma-separated): Conductor's {type: waiting} for each named type */
        get: {
            parameters: {
                query?: {
                    taskType?: string | string[];
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
    "/api/tasks/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Search tasks by type, status, run, run name, start time, free text or a query expression; answers {totalHits, results: [TaskSummary]} */
        get: {
            parameters: {
                query?: {
                    freeText?: string;
                    from?: string;
                    query?: string;
                    size?: number;
                    sort?: string | string[];
                    start?: number;
                    status?: string;
                    taskType?: string;
                    to?: string;
                    workerId?: string;
                    workflowId?: string;
                    workflowName?: string;
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
    "/api/tasks/search-v2": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Search tasks as /api/tasks/search does; answers {totalHits, results: [Task]} */
        get: {
            parameters: {
                query?: {
                    freeText?: string;
                    from?: string;
                    query?: string;
                    size?: number;
                    sort?: string | string[];
                    start?: number;
                    status?: string;
                    taskType?: string;
                    to?: string;
                    workerId?: string;
                    workflowId?: string;
                    workflowName?: string;
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
                query?: {
                    inlinePayloads?: boolean;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        callbackAfterSeconds?: number;
                        extendLease?: boolean;
                        externalOutputPayloadStoragePath?: string;
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
    "/api/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Trade an access key for a short-lived token (send it as X-Authorization or Authorization: Bearer). 404 when auth is off */
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
                        expiration?: number;
                        keyId: string;
                        keySecret: string;
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
        /**
         * Start a run (Conductor's StartWorkflowRequest, with name; other top-level keys are refused naming them); answers the run id as text
         * @description With workflowDef (Conductor's inline definition), the run follows that definition, checked as registration checks one (400 naming body.workflowDef.<field>) and not registered; its name must be the start request's name.
         */
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
                        externalInputPayloadStoragePath?: string;
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
                        workflowDef?: {
                            description?: string;
                            failureWorkflow?: string;
                            inputParameters?: string[];
                            inputTemplate?: {
                                [key: string]: unknown;
                            };
                            name: string;
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
    "/api/workflow/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start a run of the named definition; answers the run id as text
         * @description The body is the start request ({version, input, correlationId, priority, taskToDomain, idempotencyKey, idempotencyStrategy}) or, as in Conductor, the bare input map: a body with none of the start request's fields. A start request with any other top-level key is refused naming it. The query parameters version, correlationId and priority apply to both forms (refused when the body gives a different value).
         */
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
                        externalInputPayloadStoragePath?: string;
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
    "/api/workflow/{workflowId}/remove": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove an ended run: archiveWorkflow=true (default) moves it to the archive now, false deletes it for good (409 while it runs) */
        delete: {
            parameters: {
                query?: {
                    archiveWorkflow?: boolean;
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
    "/api/workflow/{workflowId}/variables": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Merge into a running or paused run's variables (under its lock) and re-evaluate it; answers the run (409 once ended) */
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
    "/api/workflow/bulk/{operation}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** The same operation over up to 1000 runs; answers {bulkSuccessfulResults, bulkErrorResults}, and for retry and restart linkedRuns {id: new run id} (new linked runs, where Conductor continues each run in place) */
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
        /** The same operation over up to 1000 runs; answers {bulkSuccessfulResults, bulkErrorResults}, and for retry and restart linkedRuns {id: new run id} (new linked runs, where Conductor continues each run in place) */
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
    "/api/workflow/bulk/delete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Delete up to 1000 ended runs for good (Orkes's bulk delete); answers {bulkSuccessfulResults, bulkErrorResults} */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
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
    "/api/workflow/bulk/remove": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove up to 1000 ended runs (archiveWorkflow as for one); answers {bulkSuccessfulResults, bulkErrorResults} */
        delete: {
            parameters: {
                query?: {
                    archiveWorkflow?: boolean;
                };
                header?: never;
                path?: never;
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
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflow/correlated/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Runs of each named definition with each correlation id; answers {correlationId: [Workflow]} */
        post: {
            parameters: {
                query?: {
                    includeClosed?: boolean;
                    includeTasks?: boolean;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        correlationIds: string[];
                        workflowNames: string[];
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
                        externalInputPayloadStoragePath?: string;
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
    "/api/workflow/external-storage-location": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A short-lived signed URL to upload (WRITE) or download (READ) a large payload; answers {uri, path} */
        get: {
            parameters: {
                query?: {
                    operation?: "READ" | "WRITE";
                    path?: string;
                    payloadType?: "WORKFLOW_INPUT" | "WORKFLOW_OUTPUT" | "TASK_INPUT" | "TASK_OUTPUT";
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
    "/api/workflow/externalstoragelocation": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A short-lived signed URL to upload (WRITE) or download (READ) a large payload; answers {uri, path} */
        get: {
            parameters: {
                query?: {
                    operation?: "READ" | "WRITE";
                    path?: string;
                    payloadType?: "WORKFLOW_INPUT" | "WORKFLOW_OUTPUT" | "TASK_INPUT" | "TASK_OUTPUT";
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
                    query?: string;
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
        /** Test run: the interpreter on a throwaway store and a virtual clock, with mocked task results; answers the run with its tasks. Runs workflowDef, or when it is absent the registered definition named by name (and version), as Conductor does */
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
                        name?: string;
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
                        version?: number;
                        workflowDef?: {
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
    "/health/live": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness: 200 while the process serves requests */
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
    "/health/ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: 200 when the database and every required part answer, else 503 */
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
    schemas: {
        ErrorBody: {
            /** @enum {string} */
            code: "VALIDATION" | "BAD_REQUEST" | "UNAUTHENTICATED" | "FORBIDDEN" | "NOT_FOUND" | "METHOD_NOT_ALLOWED" | "CONFLICT" | "PAYLOAD_TOO_LARGE" | "UNSUPPORTED_MEDIA_TYPE" | "RATE_LIMITED" | "INTERNAL" | "NOT_READY";
            /** @enum {string} */
            errorCode: "REQUEST_INVALID" | "REQUEST_MALFORMED" | "REQUEST_TIMEOUT" | "REQUEST_HEADERS_TOO_LARGE" | "REQUEST_NOT_HTTP" | "REQUEST_TARGET_INVALID" | "HOST_HEADER_INVALID" | "BODY_NOT_JSON" | "BODY_TOO_DEEP" | "BODY_TEXT_INVALID" | "BODY_TOO_LARGE" | "MEDIA_TYPE_UNSUPPORTED" | "ROUTE_NOT_FOUND" | "CONDUCTOR_ENDPOINT_UNSUPPORTED" | "QUERY_PARAMETER_INVALID" | "DATABASE_UNAVAILABLE" | "INTERNAL_ERROR" | "AUTH_OFF" | "TOKEN_REQUIRED" | "AUTHORIZATION_HEADER_INVALID" | "TOKEN_INVALID" | "TOKEN_EXPIRED" | "TOKEN_REVOKED" | "TOKEN_LIFETIME_TOO_LONG" | "ACCESS_KEY_INVALID" | "ACCESS_KEY_INACTIVE" | "IDENTITY_PROVIDER_MISMATCH" | "IDENTITY_PROVIDER_UNREACHABLE" | "ROLE_REQUIRED" | "WORKER_ROLE_REQUIRED" | "RATE_LIMIT_EXCEEDED" | "ROLE_UNKNOWN" | "APPLICATION_NOT_FOUND" | "ACCESS_KEY_NOT_FOUND" | "DEFINITION_INVALID" | "DEFINITION_NOT_FOUND" | "DEFINITION_VERSION_NOT_FOUND" | "DEFINITION_VERSION_EXISTS" | "DEFINITION_VERSION_LIMIT" | "DEFINITION_VERSION_IN_USE" | "INLINE_DEFINITION_NAME_MISMATCH" | "DEFINITION_REMOVAL_NOT_FOUND" | "TASK_DEF_NOT_FOUND" | "TASK_DEF_UPDATE_NOT_FOUND" | "TASK_DEF_REMOVAL_NOT_FOUND" | "INSTRUCTION_NOT_FOUND" | "INSTRUCTION_VERSION_NOT_FOUND" | "INSTRUCTION_VERSION_EXISTS" | "INSTRUCTION_VERSION_LIMIT" | "START_REQUEST_INVALID" | "TEST_RUN_DEFINITION_MISSING" | "IDEMPOTENCY_KEY_USED" | "RUN_NOT_FOUND" | "RUN_ENDED" | "RUN_ARCHIVED" | "RUN_NOT_PAUSABLE" | "RUN_NOT_RESUMABLE" | "RUN_NOT_TERMINABLE" | "RUN_ALREADY_RETRIED" | "RUN_NOT_RETRYABLE" | "RUN_NOT_RESTARTABLE" | "RUN_NOT_ENDED" | "RUN_NOT_RUNNING" | "RUN_NOT_REMOVABLE" | "RUN_CHANGED_WHILE_ARCHIVING" | "RUN_VARIABLES_TOO_LARGE" | "RERUN_TASK_NOT_IN_RUN" | "RERUN_TASK_NOT_IN_DEFINITION" | "RERUN_TASK_NEVER_RAN" | "SKIP_TASK_NOT_IN_DEFINITION" | "SKIP_TASK_NOT_WAITING" | "RUN_DOCUMENT_UNAVAILABLE" | "RUN_DOCUMENT_MISSING" | "RUN_DOCUMENT_UNREADABLE" | "SIGNAL_TARGET_NOT_FOUND" | "TASK_NOT_FOUND" | "TASK_TYPE_RESERVED" | "TASK_RESULT_RUN_MISMATCH" | "TASK_ATTEMPT_ENDED" | "TASK_HELD_BY_OTHER_WORKER" | "TASK_NOT_IN_PROGRESS" | "TASK_TOOK_NO_RESULT" | "TASK_NOT_NAMED" | "OPEN_TASK_NOT_FOUND" | "OPEN_TASK_BY_REF_NOT_FOUND" | "POLL_TIMEOUT_TOO_LONG" | "TASK_LOG_EMPTY" | "SEARCH_QUERY_INVALID" | "SEARCH_SORT_INVALID" | "SEARCH_WINDOW_TOO_LARGE" | "STATUS_UNKNOWN" | "TIME_INVALID" | "PAYLOAD_PATH_REQUIRED" | "PAYLOAD_PATH_INVALID" | "PAYLOAD_NOT_FOUND" | "PAYLOAD_NOT_UPLOADED" | "PAYLOAD_NOT_OBJECT" | "PAYLOAD_OVER_INLINE_LIMIT" | "PAYLOAD_OVER_MAX" | "PAYLOAD_URL_EXPIRED" | "PAYLOAD_URL_INVALID" | "PAYLOAD_URL_MISUSED" | "BLOB_STORAGE_UNAVAILABLE" | "EVENT_HANDLER_INVALID" | "EVENT_HANDLER_EXISTS" | "EVENT_HANDLER_NOT_FOUND" | "SCHEDULE_INVALID" | "SCHEDULE_NOT_FOUND" | "CRON_EXPRESSION_INVALID" | "SCHEDULE_SLOTS_UNAVAILABLE" | "SECRETS_NOT_CONFIGURED" | "SECRET_NAME_INVALID" | "SECRET_NOT_FOUND" | "SERVICE_INVALID" | "SERVICE_NOT_FOUND" | "SERVICE_METHOD_NOT_FOUND" | "SERVICE_IS_CONNECTOR" | "SERVICE_TOOLS_UNAVAILABLE" | "SERVICE_TEXT_HAS_NUL" | "SERVICE_FIELD_REQUIRED" | "INTEGRATION_INVALID" | "INTEGRATION_PROVIDER_NOT_FOUND" | "INTEGRATION_MODEL_NOT_FOUND" | "PROMPT_INVALID" | "PROMPT_NOT_FOUND";
            message: string;
            retryable: boolean;
            status: number;
            validationErrors?: {
                invalidValue?: unknown;
                message: string;
                path: string;
            }[];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
