import { z } from 'zod';
import { AuditEntrySchema, AuditQuerySchema } from './audit';
import { LoginInputSchema, MeSchema } from './auth';
import { ProblemSchema } from './errors';
import { HealthSchema } from './health';
import { KeyInputSchema, KeyPatchSchema, KeySchema, KeyStateSchema, KeyWithSecretSchema, ListKeysQuerySchema, RotateKeyInputSchema, VerificationSchema, VerifyInputSchema } from './keys';
import { PlanInputSchema, PlanPatchSchema, PlanSchema } from './plans';
import { UsageQuerySchema, UsageSeriesSchema, UsageStreamQuerySchema, UsageTopQuerySchema, UsageTopSchema } from './usage';
import { QUERY_INT_DOCS } from './query';
import { WebhookCreatedSchema, WebhookDeliverySchema, WebhookInputSchema, WebhookSchema } from './webhooks';

type Method = 'get' | 'post' | 'patch' | 'delete';

export interface RouteSpec {
  method: Method;
  path: string;
  summary: string;
  tag: string;
  auth?: 'admin' | 'none';
  body?: z.ZodType;
  query?: z.ZodObject;
  responses: Record<number, z.ZodType | null | 'text/event-stream' | 'text/csv'>;
}

const list = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item) });
const page = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), nextCursor: z.string().nullable() });

/** Every route the API serves, with the contract schemas it validates against. */
export const ROUTES: RouteSpec[] = [
  { method: 'get', path: '/health', summary: 'Postgres and Redis reachability', tag: 'health', auth: 'none', responses: { 200: HealthSchema, 503: HealthSchema } },
  { method: 'post', path: '/v1/plans', summary: 'Create a plan', tag: 'plans', body: PlanInputSchema, responses: { 201: PlanSchema, 400: ProblemSchema, 409: ProblemSchema } },
  { method: 'get', path: '/v1/plans', summary: 'List plans', tag: 'plans', responses: { 200: list(PlanSchema) } },
  { method: 'get', path: '/v1/plans/{id}', summary: 'Get a plan', tag: 'plans', responses: { 200: PlanSchema, 404: ProblemSchema } },
  { method: 'patch', path: '/v1/plans/{id}', summary: 'Change a plan (limits apply everywhere within a second)', tag: 'plans', body: PlanPatchSchema, responses: { 200: PlanSchema, 400: ProblemSchema, 404: ProblemSchema, 409: ProblemSchema } },
  { method: 'delete', path: '/v1/plans/{id}', summary: 'Delete a plan no key uses', tag: 'plans', responses: { 204: null, 404: ProblemSchema, 409: ProblemSchema } },
  { method: 'post', path: '/v1/keys', summary: 'Issue a key (the secret is shown once)', tag: 'keys', body: KeyInputSchema, responses: { 201: KeyWithSecretSchema, 400: ProblemSchema, 404: ProblemSchema } },
  { method: 'get', path: '/v1/keys', summary: 'List keys', tag: 'keys', query: ListKeysQuerySchema, responses: { 200: page(KeySchema), 400: ProblemSchema } },
  { method: 'get', path: '/v1/keys/{id}', summary: 'Get a key', tag: 'keys', responses: { 200: KeySchema, 404: ProblemSchema } },
  { method: 'patch', path: '/v1/keys/{id}', summary: 'Change a key', tag: 'keys', body: KeyPatchSchema, responses: { 200: KeySchema, 400: ProblemSchema, 404: ProblemSchema, 409: ProblemSchema } },
  { method: 'get', path: '/v1/keys/{id}/state', summary: "Where the key's limits and quota stand now (read without charging or metering)", tag: 'keys', responses: { 200: KeyStateSchema, 404: ProblemSchema, 503: ProblemSchema } },
  { method: 'post', path: '/v1/keys/{id}/rotate', summary: 'Rotate a key with a grace period', tag: 'keys', body: RotateKeyInputSchema, responses: { 201: KeyWithSecretSchema, 400: ProblemSchema, 404: ProblemSchema } },
  { method: 'delete', path: '/v1/keys/{id}', summary: 'Revoke a key', tag: 'keys', responses: { 204: null, 404: ProblemSchema } },
  { method: 'post', path: '/v1/keys/verify', summary: 'Verify a key and apply its limits', tag: 'keys', body: VerifyInputSchema, responses: { 200: VerificationSchema, 400: ProblemSchema } },
  {
    method: 'get',
    path: '/v1/demo/echo',
    summary: 'A route behind the Tollgate guard (send an API key as Bearer or X-API-Key)',
    tag: 'demo',
    auth: 'none',
    responses: { 200: z.object({ ok: z.literal(true), keyId: z.string(), ownerId: z.string().nullable(), planId: z.string(), at: z.string() }), 401: ProblemSchema, 403: ProblemSchema, 429: ProblemSchema, 503: ProblemSchema },
  },
  { method: 'get', path: '/v1/usage', summary: 'Usage over time by outcome (flushed rollups plus the live minute)', tag: 'usage', query: UsageQuerySchema, responses: { 200: UsageSeriesSchema, 400: ProblemSchema } },
  { method: 'get', path: '/v1/usage/top', summary: 'Keys with the most decisions in a range', tag: 'usage', query: UsageTopQuerySchema, responses: { 200: UsageTopSchema, 400: ProblemSchema } },
  { method: 'get', path: '/v1/usage/stream', summary: 'Live usage, one event a second while traffic flows (server-sent events)', tag: 'usage', query: UsageStreamQuerySchema, responses: { 200: 'text/event-stream', 400: ProblemSchema } },
  { method: 'get', path: '/v1/usage/export.csv', summary: 'The /v1/usage series as CSV', tag: 'usage', query: UsageQuerySchema, responses: { 200: 'text/csv', 400: ProblemSchema } },
  { method: 'post', path: '/v1/webhooks', summary: 'Subscribe a URL to events (the signing secret is shown once)', tag: 'webhooks', body: WebhookInputSchema, responses: { 201: WebhookCreatedSchema, 400: ProblemSchema } },
  { method: 'get', path: '/v1/webhooks', summary: 'List webhooks', tag: 'webhooks', responses: { 200: list(WebhookSchema) } },
  { method: 'get', path: '/v1/webhooks/{id}', summary: 'Get a webhook', tag: 'webhooks', responses: { 200: WebhookSchema, 404: ProblemSchema } },
  { method: 'get', path: '/v1/webhooks/{id}/deliveries', summary: 'Recent deliveries with their status', tag: 'webhooks', responses: { 200: list(WebhookDeliverySchema), 404: ProblemSchema } },
  { method: 'delete', path: '/v1/webhooks/{id}', summary: 'Delete a webhook', tag: 'webhooks', responses: { 204: null, 404: ProblemSchema } },
  { method: 'get', path: '/v1/audit', summary: 'Audit log', tag: 'audit', query: AuditQuerySchema, responses: { 200: page(AuditEntrySchema) } },
  { method: 'post', path: '/v1/auth/login', summary: 'Log in to the dashboard (sets a session cookie)', tag: 'auth', auth: 'none', body: LoginInputSchema, responses: { 204: null, 400: ProblemSchema, 401: ProblemSchema, 429: ProblemSchema } },
  { method: 'post', path: '/v1/auth/logout', summary: 'Log out', tag: 'auth', auth: 'none', responses: { 204: null } },
  { method: 'get', path: '/v1/auth/me', summary: 'Who am I', tag: 'auth', responses: { 200: MeSchema, 401: ProblemSchema } },
];

function schemaOf(schema: z.ZodType, io: 'input' | 'output') {
  return z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      const integer = QUERY_INT_DOCS.get(zodSchema);
      if (!integer) return;
      for (const field of Object.keys(jsonSchema)) if (field !== '$schema') delete jsonSchema[field];
      Object.assign(jsonSchema, integer);
    },
  });
}

/** Builds the OpenAPI 3.1 document from the same zod schemas the API validates with. */
export function buildOpenApiDocument(routes: RouteSpec[] = ROUTES, version = '1.0.0') {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const parameters: unknown[] = [];
    for (const match of route.path.matchAll(/\{(\w+)\}/g)) {
      parameters.push({ name: match[1], in: 'path', required: true, schema: { type: 'string' } });
    }
    if (route.query) {
      const shape = route.query.shape as Record<string, z.ZodType>;
      for (const [name, field] of Object.entries(shape)) {
        parameters.push({ name, in: 'query', required: !field.safeParse(undefined).success, schema: schemaOf(field, 'input') });
      }
    }
    const responses: Record<string, unknown> = {};
    for (const [status, body] of Object.entries(route.responses)) {
      const description = Number(status) < 300 ? 'Success' : 'Problem (RFC 9457)';
      if (body === null) responses[status] = { description };
      else if (typeof body === 'string') responses[status] = { description, content: { [body]: { schema: { type: 'string' } } } };
      else {
        const mediaType = Number(status) >= 400 ? 'application/problem+json' : 'application/json';
        responses[status] = { description, content: { [mediaType]: { schema: schemaOf(body, 'output') } } };
      }
    }
    if (route.auth !== 'none') {
      responses['401'] ??= { description: 'No or invalid credential', content: { 'application/problem+json': { schema: schemaOf(ProblemSchema, 'output') } } };
    }
    paths[route.path] ??= {};
    paths[route.path][route.method] = {
      summary: route.summary,
      tags: [route.tag],
      ...(route.auth === 'none' ? { security: [] } : {}),
      ...(parameters.length ? { parameters } : {}),
      ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(route.body, 'input') } } } } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Tollgate API', version, description: 'API keys on tiered plans, exact rate limits, live usage.' },
    components: {
      securitySchemes: {
        rootKey: { type: 'http', scheme: 'bearer', description: 'A root key (tgr_...)' },
        session: { type: 'apiKey', in: 'cookie', name: 'tollgate_session' },
      },
    },
    security: [{ rootKey: [] }, { session: [] }],
    paths,
  };
}
