import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { actorLabel, type Actor, type AuditContext } from './actor';

export type AdminRequest = FastifyRequest & {
  actor?: Actor;
  /** Whether the credential this request came with is still valid (long requests re-check: the usage stream). */
  credentialValid?: () => Promise<boolean>;
};

/** The authenticated actor of an admin route (the admin guard has set it). */
export const CurrentActor = createParamDecorator((_data: unknown, context: ExecutionContext): Actor => {
  return context.switchToHttp().getRequest<AdminRequest>().actor!;
});

/** Actor label + request id, for the audit row written with a change. */
export const Audit = createParamDecorator((_data: unknown, context: ExecutionContext): AuditContext => {
  const request = context.switchToHttp().getRequest<AdminRequest>();
  return { actor: actorLabel(request.actor!), requestId: String(request.id) };
});
