// The admin user API (reference §1.4.12): list, get, create, update, hard and soft delete.
// Every change runs in one transaction with its audit row; duplicate emails/phones are checked in
// the transaction and, for a race the check cannot see, caught again from the unique indexes.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Deps } from '../../deps';
import { ApiError, ErrorCode } from '../../errors';
import type { IdentityRow, UserRow } from '../../queries/columns';
import { insertIdentity } from '../../queries/identities';
import {
  deleteUserById,
  emailTaken,
  findIdentitiesByUserIds,
  findIdentity,
  insertAdminUser,
  lockUserById,
  mergeIdentityData,
  phoneTaken,
  softDeleteUser,
  updateUserFields,
  userIdExists,
  type UserPatch,
} from '../../queries/admin-user-writes';
import { findUserById, type Executor } from '../../queries/users';
import { serializeUser, type UserJson } from '../../serialize';
import { mergeMetadata, normalizeEmail } from '../sessions/accounts';
import { audit, AuditAction } from '../platform/audit';
import { bannedUntil, parseBanDuration } from './ban-duration';
import type { ClientInfo } from '../platform/context';
import { checkPasswordStrength, hashPassword } from '../sessions/passwords';
import { normalizePhone } from '../sessions/sign-in';
import { isUuid } from '../../uuid';

/** Who is acting: the admin JWT's sub and a readable name for the audit log. */
export interface AdminActor {
  id: string;
  username: string;
}

export interface AdminUserFields {
  aud?: string;
  role?: string;
  email?: string;
  phone?: string;
  password?: string;
  passwordHash?: string;
  emailConfirm?: boolean;
  phoneConfirm?: boolean;
  userMetadata?: Record<string, unknown>;
  appMetadata?: Record<string, unknown>;
  banDuration?: string;
}

export const Msg = {
  userNotFound: 'User not found',
  emailExists: 'A user with this email address has already been registered',
  phoneExists: 'Phone number already registered by another user',
  idExists: 'A user with this ID already exists',
  noEmailOrPhone: 'Cannot create a user without either an email or phone',
} as const;

const BCRYPT = /^\$2[abxy]\$\d{2}\$[./A-Za-z0-9]{53}$/;


const userNotFound = () => new ApiError(404, ErrorCode.user_not_found, Msg.userNotFound);

/** banned_until for a ban_duration text, or a 400 naming the value (Go's error wording). */
function banUntil(value: string, now: Date): Date | null {
  const ms = parseBanDuration(value);
  if (ms === undefined) {
    throw new ApiError(400, ErrorCode.validation_failed, `invalid format for ban duration: time: invalid duration ${JSON.stringify(value)}`);
  }
  return bannedUntil(now, ms);
}

/** Accepts a bcrypt hash for import; any other format is refused by name, never echoed. */
function importedHash(hash: string): string {
  if (BCRYPT.test(hash)) return hash;
  const kind = hash.startsWith('$argon2') ? 'Argon2' : hash.startsWith('$fbscrypt') ? 'Firebase scrypt' : 'unrecognized';
  throw new ApiError(
    400,
    ErrorCode.validation_failed,
    `password_hash: only bcrypt hashes ($2a$, $2b$, $2y$) can be imported; this one is ${kind}`,
  );
}

async function passwordHashFor(deps: Deps, fields: AdminUserFields): Promise<string | undefined> {
  if (fields.password !== undefined && fields.passwordHash !== undefined) {
    throw new ApiError(400, ErrorCode.validation_failed, 'Only one of password or password_hash can be set');
  }
  if (fields.passwordHash !== undefined) return importedHash(fields.passwordHash);
  if (fields.password !== undefined) {
    checkPasswordStrength(fields.password, deps.config.password);
    return hashPassword(fields.password, deps.config.password.bcryptCost);
  }
  return undefined;
}

/** Maps a unique-index violation that slipped past the checks (a concurrent insert) to 422. */
function duplicateFromDb(err: unknown): never {
  const e = err as { code?: string; constraint?: string; message?: string };
  if (e.code === '23505') {
    const what = `${e.constraint ?? ''} ${e.message ?? ''}`;
    if (/phone/.test(what)) throw new ApiError(422, ErrorCode.phone_exists, Msg.phoneExists, { cause: err });
    if (/email/.test(what)) throw new ApiError(422, ErrorCode.email_exists, Msg.emailExists, { cause: err });
    if (/pkey/.test(what)) throw new ApiError(422, ErrorCode.user_already_exists, Msg.idExists, { cause: err });
  }
  throw err;
}

async function withIdentities(db: Executor, user: UserRow): Promise<UserJson> {
  const identities = await findIdentitiesByUserIds(db, [user.id]);
  return serializeUser(user, identities.get(user.id) ?? []);
}

/** The audit row of an admin create/update/delete: who acted, on which user (id, email, phone). */
function auditAdminChange(
  tx: Executor,
  input: { actor: AdminActor; client: ClientInfo },
  action: AuditAction,
  user: Pick<UserRow, 'id' | 'email' | 'phone'>,
  at: Date,
): Promise<void> {
  return audit(tx, { actor: input.actor, action, client: input.client, at, traits: { user_id: user.id, user_email: user.email ?? '', user_phone: user.phone ?? '' } });
}

export async function getUser(deps: Deps, id: string): Promise<UserJson> {
  if (!isUuid(id)) throw userNotFound();
  const user = await findUserById(deps.db, id);
  if (!user) throw userNotFound();
  return withIdentities(deps.db, user);
}

export async function createUser(
  deps: Deps,
  input: { id?: string; fields: AdminUserFields; actor: AdminActor; client: ClientInfo },
): Promise<UserJson> {
  const { config } = deps;
  const f = input.fields;
  const id = input.id ?? randomUUID();
  if (!isUuid(id)) throw new ApiError(400, ErrorCode.validation_failed, 'user_id must be an UUID');
  const email = f.email ? normalizeEmail(f.email) : undefined;
  const phone = f.phone ? normalizePhone(f.phone) : undefined;
  if (!email && !phone) throw new ApiError(400, ErrorCode.validation_failed, Msg.noEmailOrPhone);
  const now = deps.clock.now();
  const banned = f.banDuration ? banUntil(f.banDuration, now) : null;
  const aud = f.aud || config.jwt.aud;
  // No password: a random one nobody knows (GoTrue does the same), so the account can only be
  // entered through a link, an OTP or a later password set by an admin.
  const hash = (await passwordHashFor(deps, f)) ?? (await hashPassword(randomBytes(32).toString('base64url'), config.password.bcryptCost));
  const providers = [...(email ? ['email'] : []), ...(phone ? ['phone'] : [])];

  try {
    return await deps.db.transaction().execute(async (tx) => {
      if (email && (await emailTaken(tx, email, aud))) throw new ApiError(422, ErrorCode.email_exists, Msg.emailExists);
      if (phone && (await phoneTaken(tx, phone, aud))) throw new ApiError(422, ErrorCode.phone_exists, Msg.phoneExists);
      if (input.id && (await userIdExists(tx, id))) throw new ApiError(422, ErrorCode.user_already_exists, Msg.idExists);
      const user = await insertAdminUser(tx, {
        id,
        aud,
        role: f.role || config.jwt.defaultGroupName,
        email: email ?? null,
        phone: phone ?? null,
        encrypted_password: hash,
        email_confirmed_at: email && f.emailConfirm ? now : null,
        phone_confirmed_at: phone && f.phoneConfirm ? now : null,
        banned_until: banned,
        raw_app_meta_data: mergeMetadata({ provider: providers[0], providers }, f.appMetadata ?? {}),
        raw_user_meta_data: f.userMetadata ?? {},
        created_at: now,
        updated_at: now,
      });
      const identities: IdentityRow[] = [];
      for (const provider of providers) {
        identities.push(
          await insertIdentity(tx, {
            id: randomUUID(),
            provider_id: id,
            user_id: id,
            identity_data: {
              sub: id,
              ...(provider === 'email' ? { email } : { phone }),
              email_verified: provider === 'email' && f.emailConfirm === true,
              phone_verified: provider === 'phone' && f.phoneConfirm === true,
            },
            provider,
            last_sign_in_at: now,
            created_at: now,
            updated_at: now,
          }),
        );
      }
      await auditAdminChange(tx, input, AuditAction.userSignedUp, user, now);
      return serializeUser(user, identities);
    });
  } catch (err) {
    duplicateFromDb(err);
  }
}

/** Creates the email/phone identity, or points the existing one at the new address. */
async function syncIdentity(tx: Executor, userId: string, provider: 'email' | 'phone', value: string, now: Date): Promise<void> {
  const existing = await findIdentity(tx, userId, provider);
  if (existing) {
    await mergeIdentityData(tx, existing.id, { [provider]: value }, now);
    return;
  }
  await insertIdentity(tx, {
    id: randomUUID(),
    provider_id: userId,
    user_id: userId,
    identity_data: { sub: userId, [provider]: value, email_verified: false, phone_verified: false },
    provider,
    last_sign_in_at: null,
    created_at: now,
    updated_at: now,
  });
}

export async function updateUser(
  deps: Deps,
  input: { id: string; fields: AdminUserFields; actor: AdminActor; client: ClientInfo },
): Promise<UserJson> {
  if (!isUuid(input.id)) throw userNotFound();
  const f = input.fields;
  const email = f.email ? normalizeEmail(f.email) : undefined;
  const phone = f.phone ? normalizePhone(f.phone) : undefined;
  const now = deps.clock.now();
  const patch: UserPatch = {};
  if (f.banDuration) patch.banned_until = banUntil(f.banDuration, now);
  const hash = await passwordHashFor(deps, f);
  if (hash !== undefined) patch.encrypted_password = hash;
  if (f.role) patch.role = f.role;

  try {
    return await deps.db.transaction().execute(async (tx) => {
      const user = await lockUserById(tx, input.id);
      if (!user) throw userNotFound();
      const aud = user.aud ?? deps.config.jwt.aud;
      if (email !== undefined && email !== user.email) {
        if (await emailTaken(tx, email, aud, user.id)) throw new ApiError(422, ErrorCode.email_exists, Msg.emailExists);
        await syncIdentity(tx, user.id, 'email', email, now);
        patch.email = email;
      }
      if (phone !== undefined && phone !== user.phone) {
        if (await phoneTaken(tx, phone, aud, user.id)) throw new ApiError(422, ErrorCode.phone_exists, Msg.phoneExists);
        await syncIdentity(tx, user.id, 'phone', phone, now);
        patch.phone = phone;
      }
      if (f.emailConfirm && user.email_confirmed_at === null) {
        patch.email_confirmed_at = now;
        const identity = await findIdentity(tx, user.id, 'email');
        if (identity) await mergeIdentityData(tx, identity.id, { email_verified: true }, now);
      }
      if (f.phoneConfirm && user.phone_confirmed_at === null) {
        patch.phone_confirmed_at = now;
        const identity = await findIdentity(tx, user.id, 'phone');
        if (identity) await mergeIdentityData(tx, identity.id, { phone_verified: true }, now);
      }
      // Merged in SQL, so a concurrent PUT /user (or another admin update) of other keys survives.
      if (f.appMetadata) patch.merge_app_metadata = f.appMetadata;
      if (f.userMetadata) patch.merge_user_metadata = f.userMetadata;
      const updated = await updateUserFields(tx, user.id, patch, now);
      await auditAdminChange(tx, input, AuditAction.userModified, updated, now);
      return withIdentities(tx, updated);
    });
  } catch (err) {
    duplicateFromDb(err);
  }
}

export async function deleteUser(
  deps: Deps,
  input: { id: string; soft: boolean; actor: AdminActor; client: ClientInfo },
): Promise<void> {
  if (!isUuid(input.id)) throw userNotFound();
  const now = deps.clock.now();
  await deps.db.transaction().execute(async (tx) => {
    const user = await lockUserById(tx, input.id);
    if (!user) throw userNotFound();
    await auditAdminChange(tx, input, AuditAction.userDeleted, user, now);
    if (!input.soft) {
      await deleteUserById(tx, user.id);
    } else if (user.deleted_at === null) {
      await softDeleteUser(tx, user.id, now);
    }
  });
}
