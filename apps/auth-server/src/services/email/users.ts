// Creating a user from an email flow (passwordless sign-in of a new address, invitation): the
// same row and identity shape as POST /signup (reference §1.4.1 step 3).
import { randomUUID } from 'node:crypto';
import { randomToken } from '@keyzone/tokens';
import type { Deps } from '../../deps';
import type { UserRow } from '../../queries/columns';
import { insertIdentity } from '../../queries/identities';
import { insertUser, type Executor } from '../../queries/users';
import { hashPassword } from '../sessions/passwords';

/** The hash of a random password nobody knows (GoTrue's passwordless sign-up). */
export function randomPasswordHash(cost: number): Promise<string> {
  return hashPassword(randomToken(32), cost);
}

export async function createEmailUser(
  deps: Pick<Deps, 'config'>,
  tx: Executor,
  input: {
    email: string;
    data: Record<string, unknown>;
    confirmed: boolean;
    /** true: a random password nobody knows (GoTrue's passwordless sign-up); false: none (invite). */
    randomPassword: boolean;
    /** That random password's hash, made by the caller (so it can do the same work for known addresses). */
    passwordHash?: string;
    now: Date;
  },
): Promise<UserRow> {
  const { config } = deps;
  const id = randomUUID();
  const hash = input.passwordHash ?? (input.randomPassword ? await randomPasswordHash(config.password.bcryptCost) : '');
  const user = await insertUser(tx, {
    id,
    aud: config.jwt.aud,
    role: config.jwt.defaultGroupName,
    email: input.email,
    phone: null,
    encrypted_password: hash,
    email_confirmed_at: input.confirmed ? input.now : null,
    confirmation_sent_at: null,
    raw_app_meta_data: { provider: 'email', providers: ['email'] },
    raw_user_meta_data: input.data,
    is_anonymous: false,
    created_at: input.now,
    updated_at: input.now,
  });
  await insertIdentity(tx, {
    id: randomUUID(),
    provider_id: id,
    user_id: id,
    identity_data: { sub: id, email: input.email, email_verified: input.confirmed, phone_verified: false, ...input.data },
    provider: 'email',
    last_sign_in_at: null,
    created_at: input.now,
    updated_at: input.now,
  });
  return user;
}
