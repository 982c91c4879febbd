import bcrypt from 'bcrypt';
import { DummyPasswordCheck, hmacSha1, pbkdf2Sha512, verifyPassword } from '../src/services/access/passwords';
import { startTestServer, type TestServer } from './helpers/server';

// NicTool test vectors (reference §2).
const PBKDF2 = { password: 'YouGuessedIt!', salt: '(ICzAm2.QfCa6.MN', hash: '050cfa70c3582be0d5bfae25138a8486dc2e6790f39bc0c4e111223ba6034432' };
const HMAC = { password: 'OhNoYouDont', username: 'unit-test', hash: '083007777a5241d01abba70c938c60d80be60027' };

describe('NicTool password schemes', () => {
  test('PBKDF2-SHA512 (5000 iterations, 32 bytes, hex) matches the vector', async () => {
    expect(await pbkdf2Sha512(PBKDF2.password, PBKDF2.salt)).toBe(PBKDF2.hash);
    expect(await verifyPassword({ scheme: 'pbkdf2-sha512', hash: PBKDF2.hash, salt: PBKDF2.salt }, PBKDF2.password, 'x')).toBe(true);
    expect(await verifyPassword({ scheme: 'pbkdf2-sha512', hash: PBKDF2.hash, salt: PBKDF2.salt }, 'youguessedit!', 'x')).toBe(false);
    expect(await verifyPassword({ scheme: 'pbkdf2-sha512', hash: PBKDF2.hash, salt: null }, PBKDF2.password, 'x')).toBe(false);
  });

  test('HMAC-SHA1 keyed with the lowercased username matches the vector', async () => {
    expect(hmacSha1(HMAC.password, HMAC.username)).toBe(HMAC.hash);
    expect(await verifyPassword({ scheme: 'hmac-sha1', hash: HMAC.hash, salt: null }, HMAC.password, 'Unit-Test')).toBe(true);
    expect(await verifyPassword({ scheme: 'hmac-sha1', hash: HMAC.hash, salt: null }, HMAC.password, 'other')).toBe(false);
  });

  test('the dummy check used for unknown users is a real bcrypt comparison at the configured cost', async () => {
    const dummy = new DummyPasswordCheck(5);
    const hash = await dummy.prepare();
    expect(hash).toMatch(/^\$2b\$05\$/);
    expect(await dummy.prepare()).toBe(hash); // computed once
    await expect(dummy.run('anything')).resolves.toBeUndefined();
  });

  test('legacy plaintext and bcrypt', async () => {
    expect(await verifyPassword({ scheme: 'plaintext', hash: 'test', salt: null }, 'test', 'x')).toBe(true);
    expect(await verifyPassword({ scheme: 'plaintext', hash: 'test', salt: null }, 'tests', 'x')).toBe(false);
    const hash = await bcrypt.hash('s3cret-pass', 4);
    expect(await verifyPassword({ scheme: 'bcrypt', hash, salt: null }, 's3cret-pass', 'x')).toBe(true);
    expect(await verifyPassword({ scheme: 'bcrypt', hash, salt: null }, 'wrong', 'x')).toBe(false);
  });
});

describe('imported NicTool users sign in and are rehashed to bcrypt', () => {
  let t: TestServer;
  let groupId: number;

  beforeAll(async () => {
    t = await startTestServer({ kind: 'postgres' });
    groupId = (await t.seedUser({ group: 'legacy.example', username: 'seed' })).groupId;
  });
  afterAll(() => t?.close());

  async function importUser(username: string, scheme: 'pbkdf2-sha512' | 'hmac-sha1' | 'plaintext', hash: string, salt: string | null) {
    const row = await t.deps.db
      .insertInto('dns.users')
      .values({ group_id: groupId, username, email: `${username}@example.com`, password_hash: hash, password_scheme: scheme, salt })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async function stored(id: number) {
    return t.deps.db.selectFrom('dns.users').select(['password_hash', 'password_scheme', 'salt']).where('id', '=', id).executeTakeFirstOrThrow();
  }

  test.each([
    ['pbkdf2-sha512', 'pbkdf2user', PBKDF2.password, PBKDF2.hash, PBKDF2.salt],
    ['hmac-sha1', 'unit-test', HMAC.password, HMAC.hash, null],
    ['plaintext', 'plainuser', 'test-password', 'test-password', null],
  ] as const)('%s: a wrong password is 401 and changes nothing; the right one signs in and rehashes', async (scheme, username, password, hash, salt) => {
    const id = await importUser(username, scheme, hash, salt);
    const wrong = await t.client().post('/session', { username: `${username}@legacy.example`, password: `${password}x` });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Invalid authentication' });
    expect((await stored(id)).password_scheme).toBe(scheme);

    const ok = await t.client().post('/session', { username: `${username}@legacy.example`, password });
    expect(ok.status).toBe(200);
    expect(ok.body.user.id).toBe(id);
    const after = await stored(id);
    expect(after.password_scheme).toBe('bcrypt');
    expect(after.salt).toBeNull();
    expect(await bcrypt.compare(password, after.password_hash)).toBe(true);

    // And the next login goes through bcrypt.
    expect((await t.client().post('/session', { username: `${username}@legacy.example`, password })).status).toBe(200);
  });
});
