// Asymmetric keys: `keys generate` prints a JWK set for JWT_KEYS (RS256 by default, ES256 and EdDSA on
// request); a rotation (new signing key, old key kept verify-only) keeps tokens signed by the old key valid and
// publishes both in the JWKS.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { createJwtService } from '@keyzone/tokens';
import { call } from './helpers/http';
import { startTestServer, type TestServer } from './helpers/server';
import { signUp } from './helpers/users';

const MAIN = path.join(__dirname, '..', 'dist', 'main.js');
const generate = (...args: string[]) => spawnSync(process.execPath, [MAIN, 'keys', 'generate', ...args], { encoding: 'utf8', env: { PATH: process.env.PATH } });

it.each([
  [[], 'RSA', 'RS256'],
  [['--alg', 'ES256'], 'EC', 'ES256'],
  [['--alg', 'EdDSA'], 'OKP', 'EdDSA'],
] as const)('keys generate %j prints one private signing key', (args, kty, alg) => {
  const run = generate(...args);
  expect(run.status).toBe(0);
  const keys = JSON.parse(run.stdout) as Array<Record<string, unknown>>;
  expect(keys).toEqual([expect.objectContaining({ kty, alg, use: 'sig', key_ops: ['sign', 'verify'], kid: expect.stringMatching(/^key-\d{4}-\d{2}-\d{2}-[0-9a-f]{8}$/), d: expect.any(String) })]);
});

it('keys generate refuses an unknown algorithm with its usage', () => {
  const run = generate('--alg', 'HS512');
  expect(run.status).toBe(2);
  expect(run.stderr).toContain('usage: main.js keys generate [--alg RS256|ES256|EdDSA]');
});

describe('rotation', () => {
  let server: TestServer;
  const oldKey = JSON.parse(generate('--alg', 'ES256').stdout)[0] as Record<string, unknown>;
  const newKey = JSON.parse(generate().stdout)[0] as Record<string, unknown>;
  beforeAll(async () => {
    server = await startTestServer({
      env: { JWT_SECRET: undefined, MAILER_AUTOCONFIRM: 'true', JWT_KEYS: JSON.stringify([newKey, { ...oldKey, key_ops: ['verify'] }]) },
    });
  }, 60_000);
  afterAll(() => server?.close());

  it('signs with the new key, still accepts the old one, and publishes both', async () => {
    const session = await signUp(server.url);
    const header = JSON.parse(Buffer.from(session.access_token.split('.')[0] ?? '', 'base64url').toString()) as { kid: string; alg: string };
    expect(header).toMatchObject({ kid: newKey.kid, alg: 'RS256' });

    const before = await createJwtService({ keys: [oldKey] });
    const claims = JSON.parse(Buffer.from(session.access_token.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
    const { exp: _exp, iat: _iat, ...rest } = claims;
    const oldToken = await before.sign(rest, { expiresInSeconds: 600, now: server.clock.now() });
    expect((await call(server.url, 'GET', '/user', { token: oldToken })).status).toBe(200);

    const jwks = await fetch(`${server.url}/.well-known/jwks.json`);
    expect(jwks.headers.get('cache-control')).toBe('public, max-age=600');
    const published = ((await jwks.json()) as { keys: Array<Record<string, unknown>> }).keys;
    expect(published.map((k) => k.kid).sort()).toEqual([newKey.kid, oldKey.kid].sort());
    expect(published.every((k) => k.d === undefined)).toBe(true);
  });
});
