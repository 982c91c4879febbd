// SQL for passkeys (issue 31): auth.webauthn_credentials and the ceremonies in flight, auth.webauthn_challenges.
import type { StoredWebAuthnCredential } from './mfa';
import type { Executor } from './users';

export interface PasskeyRow {
  id: string;
  user_id: string;
  credential_id: string;
  public_key: string;
  sign_count: string | number;
  transports: string[];
  friendly_name: string | null;
  created_at: Date | string;
  last_used_at: Date | string | null;
}

const columns = ['id', 'user_id', 'credential_id', 'public_key', 'sign_count', 'transports', 'friendly_name', 'created_at', 'last_used_at'] as const;

/** The credential as the relying party checks it. */
export function storedCredential(row: PasskeyRow): StoredWebAuthnCredential {
  return { id: row.credential_id, public_key: row.public_key, sign_count: Number(row.sign_count), transports: row.transports };
}

export async function countPasskeys(db: Executor, userId: string): Promise<number> {
  const row = await db.selectFrom('auth.webauthn_credentials').select((eb) => eb.fn.countAll<string>().as('n')).where('user_id', '=', userId).executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function listPasskeys(db: Executor, userId: string): Promise<PasskeyRow[]> {
  return (await db.selectFrom('auth.webauthn_credentials').select(columns).where('user_id', '=', userId).orderBy('created_at').execute()) as PasskeyRow[];
}

export async function findPasskeyForUpdate(db: Executor, userId: string, id: string): Promise<PasskeyRow | undefined> {
  return (await db.selectFrom('auth.webauthn_credentials').select(columns).where('user_id', '=', userId).where('id', '=', id).forUpdate()
    .executeTakeFirst()) as PasskeyRow | undefined;
}

/** Locked: two sign-ins with one credential run one after the other, so the counter check sees the other's count. */
export async function findPasskeyByCredentialIdForUpdate(db: Executor, credentialId: string): Promise<PasskeyRow | undefined> {
  return (await db.selectFrom('auth.webauthn_credentials').select(columns).where('credential_id', '=', credentialId).forUpdate()
    .executeTakeFirst()) as PasskeyRow | undefined;
}

export async function insertPasskey(
  db: Executor,
  row: {
    id: string; userId: string; credential: StoredWebAuthnCredential; aaguid: string | null; backupEligible: boolean; backedUp: boolean;
    friendlyName: string | null; at: Date;
  },
): Promise<PasskeyRow> {
  return (await db.insertInto('auth.webauthn_credentials').values({
    id: row.id, user_id: row.userId, credential_id: row.credential.id, public_key: row.credential.public_key,
    sign_count: String(row.credential.sign_count), transports: JSON.stringify(row.credential.transports), aaguid: row.aaguid,
    backup_eligible: row.backupEligible, backed_up: row.backedUp, friendly_name: row.friendlyName, created_at: row.at, updated_at: row.at,
  } as never).returning(columns).executeTakeFirstOrThrow()) as PasskeyRow;
}

export async function recordPasskeyUse(db: Executor, id: string, signCount: number, at: Date): Promise<void> {
  await db.updateTable('auth.webauthn_credentials').set({ sign_count: String(signCount), last_used_at: at, updated_at: at } as never).where('id', '=', id).execute();
}

export async function renamePasskey(db: Executor, id: string, friendlyName: string | null, at: Date): Promise<PasskeyRow> {
  return (await db.updateTable('auth.webauthn_credentials').set({ friendly_name: friendlyName, updated_at: at }).where('id', '=', id)
    .returning(columns).executeTakeFirstOrThrow()) as PasskeyRow;
}

export async function deletePasskey(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('auth.webauthn_credentials').where('id', '=', id).execute();
}

export async function insertWebauthnChallenge(
  db: Executor,
  row: { id: string; userId: string | null; kind: 'registration' | 'authentication'; challenge: string; at: Date; expiresAt: Date },
): Promise<void> {
  await db.insertInto('auth.webauthn_challenges').values({
    id: row.id, user_id: row.userId, kind: row.kind, challenge: row.challenge, created_at: row.at, expires_at: row.expiresAt,
  }).execute();
}

/** Uses the challenge up (deleted whatever the outcome: an answer is checked against it once). */
export async function takeWebauthnChallenge(
  db: Executor,
  id: string,
  kind: 'registration' | 'authentication',
): Promise<{ user_id: string | null; challenge: string; expires_at: Date | string } | undefined> {
  return db.deleteFrom('auth.webauthn_challenges').where('id', '=', id).where('kind', '=', kind)
    .returning(['user_id', 'challenge', 'expires_at']).executeTakeFirst();
}

/** A session a passkey signed in names it (sessions.factor_id), at AAL2 when the user was verified. */
export async function bindSessionToPasskey(db: Executor, input: { sessionId: string; passkeyId: string; aal: 'aal1' | 'aal2'; at: Date }): Promise<void> {
  await db.updateTable('auth.sessions').set({ factor_id: input.passkeyId, aal: input.aal, updated_at: input.at } as never).where('id', '=', input.sessionId).execute();
}

/** A removed passkey ends the sessions it signed in (a lost device must not stay signed in). */
export async function deleteSessionsOfPasskey(db: Executor, passkeyId: string): Promise<void> {
  await db.deleteFrom('auth.sessions').where('factor_id', '=', passkeyId).execute();
}
