// PKCE for email flows (reference §1.4.2, §7.4): a request with code_challenge creates a flow_state
// for the user up front; the stored token gets the pkce_ prefix; GET /verify then redirects with
// ?code=<auth_code>, which POST /token?grant_type=pkce exchanges with the verifier for a session.
import { createHash, randomUUID } from 'node:crypto';
import { constantTimeEqual } from '@keyzone/tokens';
import type { CodeChallengeMethod } from '@keyzone/db';
import type { Deps } from '../../deps';
import { ApiError, ErrorCode } from '../../errors';
import { deleteFlowState, findFlowStateByAuthCodeForUpdate, insertFlowState, issueAuthCodeForUser } from '../../queries/flow-state';
import { findIdentitiesByUserId } from '../../queries/identities';
import { findUserById, setLastSignIn, type Executor } from '../../queries/users';
import type { TokenResponseJson } from '../../serialize';
import { isBanned } from '../sessions/accounts';
import { tokenResponse } from '../sessions/access-token';
import { audit, AuditAction } from '../platform/audit';
import type { ClientInfo } from '../platform/context';
import { createSession } from '../sessions/sessions';

/** EXTERNAL_FLOW_STATE_EXPIRY_DURATION's default and minimum (reference §6.3). */
export const FLOW_STATE_TTL_SECONDS = 300;

export interface PkceParams {
  codeChallenge: string;
  codeChallengeMethod: CodeChallengeMethod;
}

/** AMR / flow-state methods of the email flows (GoTrue's ParseAuthenticationMethod). */
export type EmailAuthenticationMethod = 'email/signup' | 'magiclink' | 'recovery' | 'invite' | 'email_change' | 'otp';

const CHALLENGE = /^[A-Za-z0-9._~-]{43,128}$/;

/** Both or neither (JSON null counts as absent, as auth-js sends it); undefined = implicit flow. */
export function parsePkceParams(challenge: string | null | undefined, method: string | null | undefined): PkceParams | undefined {
  const hasChallenge = typeof challenge === 'string' && challenge !== '';
  const hasMethod = typeof method === 'string' && method !== '';
  if (!hasChallenge && !hasMethod) return undefined;
  if (!hasChallenge || !hasMethod) {
    throw new ApiError(400, ErrorCode.validation_failed, 'PKCE flow requires code_challenge_method and code_challenge');
  }
  if (!CHALLENGE.test(challenge)) {
    throw new ApiError(400, ErrorCode.validation_failed, 'code challenge has to be between 43 and 128 characters');
  }
  const normalized = method.toLowerCase();
  if (normalized !== 's256' && normalized !== 'plain') {
    throw new ApiError(400, ErrorCode.validation_failed, `unsupported code_challenge method "${method}"`);
  }
  return { codeChallenge: challenge, codeChallengeMethod: normalized };
}

export async function createEmailFlowState(
  tx: Executor,
  input: { userId: string; pkce: PkceParams; method: EmailAuthenticationMethod; now: Date },
): Promise<void> {
  await insertFlowState(tx, {
    id: randomUUID(),
    userId: input.userId,
    authCode: randomUUID(),
    codeChallenge: input.pkce.codeChallenge,
    codeChallengeMethod: input.pkce.codeChallengeMethod,
    providerType: input.method,
    authenticationMethod: input.method,
    at: input.now,
  });
}

/** After a pkce_ link was verified: the auth code to put in the redirect. */
export async function issueAuthCode(
  tx: Executor,
  input: { userId: string; methods: EmailAuthenticationMethod[]; now: Date },
): Promise<string> {
  const code = await issueAuthCodeForUser(tx, { userId: input.userId, authenticationMethods: input.methods, at: input.now });
  if (!code) throw new ApiError(404, ErrorCode.flow_state_not_found, 'invalid flow state, no valid flow state found');
  return code;
}

export function verifierMatches(verifier: string, challenge: string, method: CodeChallengeMethod): boolean {
  const computed = method === 's256' ? createHash('sha256').update(verifier, 'ascii').digest('base64url') : verifier;
  return constantTimeEqual(computed, challenge);
}

/** POST /token?grant_type=pkce {auth_code, code_verifier}: the flow state is used once. */
export async function exchangeAuthCode(
  deps: Pick<Deps, 'db' | 'jwt' | 'config' | 'clock' | 'log'>,
  input: { authCode: string; codeVerifier: string; client: ClientInfo },
): Promise<TokenResponseJson> {
  if (!input.authCode || !input.codeVerifier) {
    throw new ApiError(400, ErrorCode.validation_failed, 'invalid request: both auth code and code verifier should be non-empty');
  }
  const now = deps.clock.now();
  const result = await deps.db.transaction().execute(async (tx) => {
    const flow = await findFlowStateByAuthCodeForUpdate(tx, input.authCode);
    if (!flow || !flow.user_id) {
      throw new ApiError(404, ErrorCode.flow_state_not_found, 'invalid flow state, no valid flow state found');
    }
    const startedAt = new Date(flow.auth_code_issued_at ?? flow.created_at).getTime();
    if (startedAt + FLOW_STATE_TTL_SECONDS * 1000 < now.getTime()) {
      throw new ApiError(422, ErrorCode.flow_state_expired, 'invalid flow state, flow state has expired');
    }
    if (!flow.code_challenge || !flow.code_challenge_method || !verifierMatches(input.codeVerifier, flow.code_challenge, flow.code_challenge_method)) {
      throw new ApiError(400, ErrorCode.bad_code_verifier, 'code challenge does not match previously saved code verifier');
    }
    const user = await findUserById(tx, flow.user_id);
    if (!user) throw new ApiError(404, ErrorCode.flow_state_not_found, 'invalid flow state, no valid flow state found');
    if (isBanned(user, now)) throw new ApiError(400, ErrorCode.user_banned, 'User is banned');
    await deleteFlowState(tx, flow.id);
    const issued = await createSession(tx, { user, method: flow.authentication_method, client: input.client, at: now });
    await setLastSignIn(tx, user.id, now);
    await audit(tx, { actor: user, action: AuditAction.login, client: input.client, at: now, traits: { provider_type: flow.authentication_method } });
    return { user: { ...user, last_sign_in_at: now }, issued, providerToken: flow.provider_access_token, providerRefreshToken: flow.provider_refresh_token };
  });
  const response = await tokenResponse(deps, {
    user: result.user,
    identities: await findIdentitiesByUserId(deps.db, result.user.id),
    session: result.issued.session,
    amr: result.issued.amr,
    refreshToken: result.issued.refreshToken,
  });
  if (result.providerToken) {
    response.provider_token = result.providerToken;
    response.provider_refresh_token = result.providerRefreshToken ?? '';
  }
  return response;
}
