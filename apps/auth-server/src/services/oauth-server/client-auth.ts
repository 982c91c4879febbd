// Client authentication at the token, revocation and introspection endpoints: client_secret_basic (HTTP Basic,
// RFC 6749 §2.3.1: id and secret form-encoded, then base64), client_secret_post (in the body) or none (a public
// client names itself with client_id and proves nothing; PKCE binds its codes). A client must use the method it
// registered, as in GoTrue; every failure is 401 invalid_client without saying which part was wrong.
import type { Deps } from '../../deps';
import { OAuthError } from '../../errors';
import { findOAuthClient, type OAuthClientRow } from '../../queries/oauth-clients';
import { isUuid } from '../../uuid';
import { secretMatches } from './clients';

export interface PresentedCredentials {
  /** The Authorization header, if any. */
  authorization: string | undefined;
  /** client_id / client_secret of the form or JSON body. */
  clientId: unknown;
  clientSecret: unknown;
}

const failed = (description = 'Invalid client credentials') => new OAuthError('invalid_client', description, 401);

function formDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

function readCredentials(input: PresentedCredentials): { clientId: string; secret: string; method: string } {
  const basic = /^basic\s+(\S+)\s*$/i.exec(input.authorization ?? '');
  const bodyId = typeof input.clientId === 'string' ? input.clientId : '';
  const bodySecret = typeof input.clientSecret === 'string' ? input.clientSecret : '';
  if (basic?.[1]) {
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const clientId = colon < 0 ? undefined : formDecode(decoded.slice(0, colon));
    const secret = colon < 0 ? undefined : formDecode(decoded.slice(colon + 1));
    if (clientId === undefined || secret === undefined) throw failed('Invalid basic auth format');
    // Two ways at once is ambiguous (RFC 6749 §2.3: a client MUST NOT use more than one method).
    if (bodySecret !== '' || (bodyId !== '' && bodyId !== clientId)) throw failed('Use one client authentication method');
    return { clientId, secret, method: 'client_secret_basic' };
  }
  if (bodyId === '') throw failed('client_id is required');
  return { clientId: bodyId, secret: bodySecret, method: bodySecret !== '' ? 'client_secret_post' : 'none' };
}

/** The client the request authenticates as, or 401 invalid_client. */
export async function authenticateClient(deps: Pick<Deps, 'db'>, input: PresentedCredentials): Promise<OAuthClientRow> {
  const { clientId, secret, method } = readCredentials(input);
  if (!isUuid(clientId)) throw failed();
  const client = await findOAuthClient(deps.db, clientId);
  if (!client) throw failed();
  if (client.token_endpoint_auth_method !== method) {
    throw failed(`invalid authentication method: client is registered for '${client.token_endpoint_auth_method}' but '${method}' was used`);
  }
  if (client.client_type === 'confidential' && !secretMatches(secret, client.client_secret_hash)) throw failed();
  return client;
}
