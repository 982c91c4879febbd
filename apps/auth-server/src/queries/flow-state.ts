// SQL for auth.flow_state (PKCE). Email flows create the row up front with the user set.
import type { CodeChallengeMethod } from '@keyzone/db';
import type { Executor } from './users';

export interface FlowStateRow {
  id: string;
  user_id: string | null;
  auth_code: string | null;
  code_challenge: string | null;
  code_challenge_method: CodeChallengeMethod | null;
  authentication_method: string;
  provider_access_token: string | null;
  provider_refresh_token: string | null;
  auth_code_issued_at: Date | string | null;
  created_at: Date | string;
}

const flowStateColumns = [
  'id',
  'user_id',
  'auth_code',
  'code_challenge',
  'code_challenge_method',
  'authentication_method',
  'provider_access_token',
  'provider_refresh_token',
  'auth_code_issued_at',
  'created_at',
] as const;

export async function insertFlowState(
  db: Executor,
  row: {
    id: string;
    userId: string | null;
    authCode: string;
    codeChallenge: string;
    codeChallengeMethod: CodeChallengeMethod;
    providerType: string;
    authenticationMethod: string;
    at: Date;
  },
): Promise<void> {
  await db
    .insertInto('auth.flow_state')
    .values({
      id: row.id,
      user_id: row.userId,
      auth_code: row.authCode,
      code_challenge: row.codeChallenge,
      code_challenge_method: row.codeChallengeMethod,
      provider_type: row.providerType,
      authentication_method: row.authenticationMethod,
      created_at: row.at,
      updated_at: row.at,
    })
    .execute();
}

/** The newest flow state of a user for one method, stamped with the time its code was handed out. */
export async function issueAuthCodeForUser(
  db: Executor,
  input: { userId: string; authenticationMethods: string[]; at: Date },
): Promise<string | undefined> {
  const row = await db
    .updateTable('auth.flow_state')
    .set({ auth_code_issued_at: input.at, updated_at: input.at })
    .where('id', '=', (eb) =>
      eb
        .selectFrom('auth.flow_state')
        .select('id')
        .where('user_id', '=', input.userId)
        .where('authentication_method', 'in', input.authenticationMethods)
        .orderBy('created_at', 'desc')
        .limit(1),
    )
    .returning(['auth_code'])
    .executeTakeFirst();
  return row?.auth_code ?? undefined;
}

/** Locks the flow state of an auth code for the exchange (a concurrent exchange waits, then finds nothing). */
export async function findFlowStateByAuthCodeForUpdate(db: Executor, authCode: string): Promise<FlowStateRow | undefined> {
  return (await db
    .selectFrom('auth.flow_state')
    .select(flowStateColumns)
    .where('auth_code', '=', authCode)
    .forUpdate()
    .executeTakeFirst()) as FlowStateRow | undefined;
}

export async function deleteFlowState(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('auth.flow_state').where('id', '=', id).execute();
}

/** The flow of an external sign-in: its id is the `state` sent to the provider. */
export interface OAuthFlowRow {
  id: string;
  provider_type: string;
  referrer: string | null;
  code_challenge: string | null;
  code_challenge_method: CodeChallengeMethod | null;
  linking_target_id: string | null;
  provider_code_verifier: string | null;
  browser_binding: string | null;
  auth_code: string | null;
  created_at: Date | string;
}

export async function insertOAuthFlowState(
  db: Executor,
  row: {
    id: string;
    provider: string;
    referrer: string;
    pkce: { codeChallenge: string; codeChallengeMethod: CodeChallengeMethod } | undefined;
    linkingTargetId: string | null;
    providerCodeVerifier: string | null;
    emailOptional: boolean;
    browserBinding: string | null;
    at: Date;
  },
): Promise<void> {
  await db
    .insertInto('auth.flow_state')
    .values({
      id: row.id,
      provider_type: row.provider,
      authentication_method: 'oauth',
      referrer: row.referrer,
      code_challenge: row.pkce?.codeChallenge ?? null,
      code_challenge_method: row.pkce?.codeChallengeMethod ?? null,
      linking_target_id: row.linkingTargetId,
      provider_code_verifier: row.providerCodeVerifier,
      browser_binding: row.browserBinding,
      email_optional: row.emailOptional,
      created_at: row.at,
      updated_at: row.at,
    } as never)
    .execute();
}

/** Locked: of two callbacks with one state, the second waits and then sees it used. */
export async function findOAuthFlowStateForUpdate(db: Executor, id: string): Promise<OAuthFlowRow | undefined> {
  return (await db
    .selectFrom('auth.flow_state')
    .select(['id', 'provider_type', 'referrer', 'code_challenge', 'code_challenge_method', 'linking_target_id', 'provider_code_verifier', 'browser_binding', 'auth_code', 'created_at'])
    .where('id', '=', id)
    .where('authentication_method', '=', 'oauth')
    .forUpdate()
    .executeTakeFirst()) as OAuthFlowRow | undefined;
}

/**
 * The callback uses the state up: an implicit flow's row is deleted; a PKCE flow's row gets its auth code at
 * once (a used state), and the user and provider tokens once the sign-in succeeded.
 */
export async function consumeOAuthFlowState(db: Executor, id: string, authCode: string | null, at: Date): Promise<void> {
  if (authCode === null) await deleteFlowState(db, id);
  else await db.updateTable('auth.flow_state').set({ auth_code: authCode, updated_at: at } as never).where('id', '=', id).execute();
}

export async function completeOAuthFlowState(
  db: Executor,
  input: { id: string; userId: string; providerAccessToken: string; providerRefreshToken: string | null; at: Date },
): Promise<void> {
  await db
    .updateTable('auth.flow_state')
    .set({
      user_id: input.userId,
      auth_code_issued_at: input.at,
      provider_access_token: input.providerAccessToken,
      provider_refresh_token: input.providerRefreshToken,
      provider_code_verifier: null,
      updated_at: input.at,
    } as never)
    .where('id', '=', input.id)
    .execute();
}
