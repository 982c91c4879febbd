// The consent page shows the client's registered logo: its CSP then allows images from that one https origin, for
// that page only. The lookup reveals nothing but the origin of a logo, and only to whoever holds the unguessable
// authorization id.
import type { Deps } from '../../deps';
import { findOAuthAuthorization } from '../../queries/oauth-authorizations';
import { findOAuthClient } from '../../queries/oauth-clients';

export async function clientLogoOrigin(deps: Pick<Deps, 'db'>, authorizationId: string): Promise<string | undefined> {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(authorizationId)) return undefined;
  const authorization = await findOAuthAuthorization(deps.db, authorizationId);
  if (!authorization) return undefined;
  const client = await findOAuthClient(deps.db, authorization.client_id);
  if (!client?.logo_uri) return undefined;
  try {
    const url = new URL(client.logo_uri);
    return url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}
