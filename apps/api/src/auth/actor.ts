import type { Role } from '@tollgate/contracts';

/** Who is calling the admin API: a root key or a dashboard user. Written into every audit row. */
export interface Actor {
  kind: 'root_key' | 'admin_user';
  id: string;
  role: Role;
  email?: string;
  /** Session id, for logout. */
  sessionId?: string;
}

/** Prefixes of an audit row's actor, before the id. */
export const ROOT_KEY_ACTOR = 'root_key:';
export const ADMIN_ACTOR = 'admin:';

export function actorLabel(actor: Actor): string {
  return (actor.kind === 'root_key' ? ROOT_KEY_ACTOR : ADMIN_ACTOR) + actor.id;
}

/** What repositories need to write an audit row in the same transaction as the change. */
export interface AuditContext {
  actor: string;
  requestId: string;
}
