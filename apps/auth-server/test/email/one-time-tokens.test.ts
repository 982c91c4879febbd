// The one-time-token store against real PostgreSQL: hashing, mirroring, single use, expiry,
// frequency guard, PKCE prefix, clearing.
import { randomUUID } from 'node:crypto';
import { hashOneTimeToken } from '@keyzone/tokens';
import { createTestDatabase } from '@keyzone/db/testing';
import type { AuthDb } from '../../src/queries/db';
import { clearEmailTokens, consumeEmailToken, issueEmailToken } from '../../src/services/email/one-time-tokens';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let db: AuthDb;

beforeAll(async () => {
  database = await createTestDatabase({ kind: 'postgres', migrate: 'auth' });
  db = database.db as AuthDb;
});
afterAll(async () => database.destroy());

async function newUser(email: string): Promise<string> {
  const id = randomUUID();
  await db.insertInto('auth.users').values({ id, aud: 'authenticated', role: 'authenticated', email, encrypted_password: '' } as never).execute();
  return id;
}

async function userColumns(id: string) {
  return db.selectFrom('auth.users').select(['confirmation_token', 'confirmation_sent_at', 'recovery_token']).where('id', '=', id).executeTakeFirstOrThrow();
}

const t0 = new Date('2026-01-01T00:00:00Z');
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);

describe('one-time tokens', () => {
  it('stores only SHA-224(email + otp), mirrored in the users column, and consumes it once', async () => {
    const id = await newUser('one@example.com');
    const issued = await issueEmailToken(db, { userId: id, type: 'confirmation_token', relatesTo: 'one@example.com', otpLength: 6, now: t0 });
    expect(issued.otp).toMatch(/^\d{6}$/);
    expect(issued.tokenHash).toBe(hashOneTimeToken('one@example.com', issued.otp));
    expect(issued.tokenHash).toMatch(/^[0-9a-f]{56}$/);
    expect(await userColumns(id)).toMatchObject({ confirmation_token: issued.tokenHash, confirmation_sent_at: t0 });
    const row = await db.selectFrom('auth.one_time_tokens').select(['token_hash', 'relates_to']).where('user_id', '=', id).executeTakeFirstOrThrow();
    expect(row).toEqual({ token_hash: issued.tokenHash, relates_to: 'one@example.com' });

    const proof = { email: 'one@example.com', otp: issued.otp };
    const wrongType = await consumeEmailToken(db, { proof, types: ['recovery_token'], now: at(10), otpExpSeconds: 60 });
    expect(wrongType).toBeUndefined();
    const consumed = await consumeEmailToken(db, { proof, types: ['confirmation_token'], now: at(10), otpExpSeconds: 60 });
    expect(consumed).toMatchObject({ userId: id, type: 'confirmation_token' });
    expect((await userColumns(id)).confirmation_token).toBe('');
    expect(await consumeEmailToken(db, { proof, types: ['confirmation_token'], now: at(11), otpExpSeconds: 60 })).toBeUndefined();
  });

  it('expires MAILER_OTP_EXP seconds after issue', async () => {
    const id = await newUser('two@example.com');
    const issued = await issueEmailToken(db, { userId: id, type: 'recovery_token', relatesTo: 'two@example.com', otpLength: 8, now: t0 });
    expect(issued.otp).toMatch(/^\d{8}$/);
    const proof = { tokenHash: issued.tokenHash };
    expect(await consumeEmailToken(db, { proof, types: ['recovery_token'], now: at(61), otpExpSeconds: 60 })).toBeUndefined();
    expect(await consumeEmailToken(db, { proof, types: ['recovery_token'], now: at(59), otpExpSeconds: 60 })).toMatchObject({ userId: id });
  });

  it('refuses a second send within the frequency window with the remaining seconds', async () => {
    const id = await newUser('three@example.com');
    const base = { userId: id, type: 'recovery_token' as const, relatesTo: 'three@example.com', otpLength: 6, minIntervalSeconds: 60 };
    const first = await issueEmailToken(db, { ...base, now: t0 });
    await expect(issueEmailToken(db, { ...base, now: at(15) })).rejects.toMatchObject({
      status: 429,
      code: 'over_email_send_rate_limit',
      message: 'For security purposes, you can only request this after 45 seconds.',
    });
    // The refused send left the first token in place.
    expect((await userColumns(id)).recovery_token).toBe(first.tokenHash);
    const second = await issueEmailToken(db, { ...base, now: at(60) });
    expect(second.tokenHash).not.toBe(first.tokenHash);
    // Only the newest token is live.
    expect(await consumeEmailToken(db, { proof: { tokenHash: first.tokenHash }, types: ['recovery_token'], now: at(61), otpExpSeconds: 600 })).toBeUndefined();
  });

  it('prefixes PKCE tokens; the typed code still matches', async () => {
    const id = await newUser('four@example.com');
    const issued = await issueEmailToken(db, { userId: id, type: 'confirmation_token', relatesTo: 'four@example.com', otpLength: 6, now: t0, pkce: true });
    expect(issued.tokenHash).toBe(`pkce_${hashOneTimeToken('four@example.com', issued.otp)}`);
    const consumed = await consumeEmailToken(db, {
      proof: { email: 'four@example.com', otp: issued.otp },
      types: ['confirmation_token'],
      now: at(1),
      otpExpSeconds: 60,
    });
    expect(consumed?.tokenHash).toBe(issued.tokenHash);
  });

  it('a concurrent double use consumes once', async () => {
    const id = await newUser('five@example.com');
    const issued = await issueEmailToken(db, { userId: id, type: 'recovery_token', relatesTo: 'five@example.com', otpLength: 6, now: t0 });
    const attempt = () =>
      db.transaction().execute((tx) => consumeEmailToken(tx, { proof: { tokenHash: issued.tokenHash }, types: ['recovery_token'], now: at(1), otpExpSeconds: 60 }));
    const results = await Promise.all([attempt(), attempt(), attempt()]);
    expect(results.filter((r) => r !== undefined)).toHaveLength(1);
  });

  it('clears every token of a user', async () => {
    const id = await newUser('six@example.com');
    const a = await issueEmailToken(db, { userId: id, type: 'recovery_token', relatesTo: 'six@example.com', otpLength: 6, now: t0 });
    await issueEmailToken(db, { userId: id, type: 'confirmation_token', relatesTo: 'six@example.com', otpLength: 6, now: t0 });
    await clearEmailTokens(db, id);
    expect(await userColumns(id)).toMatchObject({ confirmation_token: '', recovery_token: '' });
    expect(await consumeEmailToken(db, { proof: { tokenHash: a.tokenHash }, types: ['recovery_token'], now: at(1), otpExpSeconds: 60 })).toBeUndefined();
  });
});
