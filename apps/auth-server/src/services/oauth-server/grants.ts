// The user's grants (GET/DELETE /user/oauth/grants): the clients they consented to, and taking a consent back,
// which ends at once every session the client holds for them (its refresh tokens die with the session, and its
// access tokens stop being accepted, since each names its session).
import type { Deps } from '../../deps';
import { ErrorCode, badRequest, notFound } from '../../errors';
import type { UserRow } from '../../queries/columns';
import { listActiveConsents, revokeConsent } from '../../queries/oauth-consents';
import { deleteOAuthClientSessions } from '../../queries/sessions';
import { isUuid } from '../../uuid';
import { audit, AuditAction } from '../platform/audit';
import type { ClientInfo } from '../platform/context';
import { parseScopes } from './scopes';

export interface GrantJson {
  client: { id: string; name?: string; uri?: string; logo_uri?: string };
  scopes: string[];
  granted_at: string;
}

export async function listGrants(deps: Pick<Deps, 'db'>, user: UserRow): Promise<GrantJson[]> {
  const rows = await listActiveConsents(deps.db, user.id);
  return rows.map((row) => ({
    client: {
      id: row.client_id,
      ...(row.client_name ? { name: row.client_name } : {}),
      ...(row.client_uri ? { uri: row.client_uri } : {}),
      ...(row.logo_uri ? { logo_uri: row.logo_uri } : {}),
    },
    scopes: parseScopes(row.scopes),
    granted_at: new Date(row.granted_at).toISOString(),
  }));
}

export async function revokeGrant(deps: Pick<Deps, 'db' | 'clock'>, user: UserRow, clientId: string | undefined, client: ClientInfo): Promise<void> {
  if (!clientId) throw badRequest(ErrorCode.validation_failed, 'client_id query parameter is required');
  if (!isUuid(clientId)) throw badRequest(ErrorCode.validation_failed, 'invalid client_id format');
  const at = deps.clock.now();
  await deps.db.transaction().execute(async (tx) => {
    if (!(await revokeConsent(tx, user.id, clientId, at))) throw notFound(ErrorCode.oauth_consent_not_found, 'No active grant found for this client');
    await deleteOAuthClientSessions(tx, clientId, user.id);
    await audit(tx, { actor: user, action: AuditAction.tokenRevoked, client, at, traits: { oauth_client_id: clientId, action: 'revoke_oauth_grant' } });
  });
}
