// Audit log rows (reference §5.1 audit_log_entries). Actions and their log types follow GoTrue's
// ActionLogTypeMap so existing dashboards read them unchanged. Call inside the transaction of the
// change being audited.
import type { Executor } from '../../queries/users';
import { insertAuditEntry } from '../../queries/audit';
import type { UserRow } from '../../queries/columns';
import type { ClientInfo } from './context';

export const AuditAction = {
  login: 'login',
  logout: 'logout',
  userSignedUp: 'user_signedup',
  userInvited: 'user_invited',
  userDeleted: 'user_deleted',
  userModified: 'user_modified',
  userRecoveryRequested: 'user_recovery_requested',
  userConfirmationRequested: 'user_confirmation_requested',
  userReauthenticateRequested: 'user_reauthenticate_requested',
  userRepeatedSignup: 'user_repeated_signup',
  userUpdatedPassword: 'user_updated_password',
  tokenRevoked: 'token_revoked',
  tokenRefreshed: 'token_refreshed',
  identityLinked: 'identity_linked',
  identityUnlinked: 'identity_unlinked',
} as const;

export type AuditAction = (typeof AuditAction)[keyof typeof AuditAction];

const logTypes: Record<AuditAction, string> = {
  login: 'account',
  logout: 'account',
  user_signedup: 'team',
  user_invited: 'team',
  user_deleted: 'team',
  user_modified: 'user',
  user_recovery_requested: 'user',
  user_confirmation_requested: 'user',
  user_reauthenticate_requested: 'user',
  user_repeated_signup: 'user',
  user_updated_password: 'user',
  token_revoked: 'token',
  token_refreshed: 'token',
  identity_linked: 'account',
  identity_unlinked: 'account',
};

/** The actor is normally a user row; admin actions pass { id, username } from the admin JWT. */
export type AuditActor = Pick<UserRow, 'id' | 'email' | 'phone' | 'raw_user_meta_data'> | { id: string; username: string };

export interface AuditInput {
  actor: AuditActor;
  action: AuditAction;
  client: ClientInfo;
  at: Date;
  traits?: Record<string, unknown>;
}

export async function audit(db: Executor, input: AuditInput): Promise<void> {
  await insertAuditEntry(db, auditEntry(input));
}

/** The row audit() writes, for callers that batch it into a larger statement. */
export function auditEntry(input: AuditInput): { payload: Record<string, unknown>; ip: string; at: Date } {
  const { actor } = input;
  const payload: Record<string, unknown> = { actor_id: actor.id };
  if ('username' in actor) {
    payload.actor_username = actor.username;
  } else {
    payload.actor_username = actor.email || actor.phone || '';
    const meta = actor.raw_user_meta_data as Record<string, unknown> | null;
    if (meta && typeof meta.full_name === 'string') payload.actor_name = meta.full_name;
  }
  payload.actor_via_sso = 'is_sso_user' in actor && actor.is_sso_user === true;
  payload.action = input.action;
  payload.log_type = logTypes[input.action];
  if (input.traits) payload.traits = input.traits;
  return { payload, ip: input.client.ip, at: input.at };
}
