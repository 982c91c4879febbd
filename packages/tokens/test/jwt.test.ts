import { createPublicKey } from 'node:crypto';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { createJwtService, JwtKeyConfigError, TokenError, type JwtService } from '../src';
import { NOW, NOW_S, forge, privateJwk } from './keys';

const SECRET = 'super-secret-jwt-token-with-at-least-32-characters';
const claims = { sub: '3f1c6e2a-0000-4000-8000-000000000001', aud: 'authenticated', role: 'authenticated' };

async function rejection(service: JwtService, token: string, options?: Parameters<JwtService['verify']>[1]): Promise<TokenError> {
  try {
    await service.verify(token, { now: NOW, ...options });
  } catch (err) {
    expect(err).toBeInstanceOf(TokenError);
    return err as TokenError;
  }
  throw new Error('token was accepted');
}

describe('sign/verify round trip', () => {
  it('HS256 with the secret: no kid, iat/exp from now, iss from the issuer', async () => {
    const service = await createJwtService({ secret: SECRET, issuer: 'https://auth.example/auth/v1' });
    expect(service.algorithm).toBe('HS256');
    const token = await service.sign(claims, { expiresInSeconds: 3600, now: NOW });
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'JWT' });
    const payload = await service.verify(token, { now: NOW, audience: 'authenticated' });
    expect(payload).toEqual({ ...claims, iat: NOW_S, exp: NOW_S + 3600, iss: 'https://auth.example/auth/v1' });
    expect(service.jwks()).toEqual({ keys: [] });
  });

  it.each(['RS256', 'ES256', 'EdDSA'] as const)('%s from JWT_KEYS: kid in the header, verifiable from jwks()', async (alg) => {
    const jwk = await privateJwk(alg, `${alg}-key`);
    const service = await createJwtService({ keys: JSON.stringify([jwk]) });
    expect(service.algorithm).toBe(alg);
    const token = await service.sign(claims, { expiresInSeconds: 60, now: NOW });
    expect(decodeProtectedHeader(token)).toEqual({ alg, typ: 'JWT', kid: `${alg}-key` });
    expect(await service.verify(token, { now: NOW, audience: 'authenticated' })).toMatchObject(claims);

    // Another app verifying with only the published JWKS accepts it.
    const { payload } = await jwtVerify(token, createLocalJWKSet(service.jwks() as never), { currentDate: NOW });
    expect(payload.sub).toBe(claims.sub);
  });

  it('infers alg from kty/crv when the JWK has none', async () => {
    for (const alg of ['RS256', 'ES256', 'EdDSA'] as const) {
      const service = await createJwtService({ keys: [await privateJwk(alg, 'k', { withAlg: false })] });
      expect(service.algorithm).toBe(alg);
      expect(service.jwks().keys[0]).toMatchObject({ kid: 'k', alg });
    }
  });
});

describe('rotation and migration', () => {
  it('verifies tokens of a verify-only key and signs with the sign key', async () => {
    const oldKey = await privateJwk('RS256', 'old');
    const newKey = await privateJwk('ES256', 'new');
    const before = await createJwtService({ keys: [oldKey] });
    const oldToken = await before.sign(claims, { expiresInSeconds: 60, now: NOW });

    const after = await createJwtService({ keys: [{ ...oldKey, key_ops: ['verify'] }, newKey] });
    expect(after.algorithm).toBe('ES256');
    expect(await after.verify(oldToken, { now: NOW })).toMatchObject(claims);
    const newToken = await after.sign(claims, { expiresInSeconds: 60, now: NOW });
    expect(decodeProtectedHeader(newToken).kid).toBe('new');
    expect(after.jwks().keys.map((k) => k.kid)).toEqual(['old', 'new']);
  });

  it('accepts a verify-only key given as a public JWK', async () => {
    const oldKey = await privateJwk('EdDSA', 'old');
    const oldToken = await (await createJwtService({ keys: [oldKey] })).sign(claims, { expiresInSeconds: 60, now: NOW });
    const { d: _d, ...publicOnly } = oldKey;
    const service = await createJwtService({ keys: [{ ...publicOnly, key_ops: ['verify'] }, await privateJwk('RS256', 'new')] });
    expect(await service.verify(oldToken, { now: NOW })).toMatchObject(claims);
  });

  it('with secret and keys: signs with the key, still verifies legacy HS256 tokens', async () => {
    const legacy = await createJwtService({ secret: SECRET });
    const legacyToken = await legacy.sign(claims, { expiresInSeconds: 60, now: NOW });
    const service = await createJwtService({ secret: SECRET, keys: [await privateJwk('RS256', 'rsa')] });
    expect(service.algorithm).toBe('RS256');
    expect(await service.verify(legacyToken, { now: NOW })).toMatchObject(claims);
    expect(decodeProtectedHeader(await service.sign(claims, { expiresInSeconds: 60, now: NOW })).kid).toBe('rsa');
    expect(service.jwks().keys).toHaveLength(1);
  });
});

describe('verify rejects', () => {
  let rsaJwk: Record<string, unknown>;
  let rsa: JwtService;
  let hs: JwtService;
  let valid: string;

  beforeAll(async () => {
    rsaJwk = await privateJwk('RS256', 'rsa-1');
    rsa = await createJwtService({ keys: [rsaJwk] });
    hs = await createJwtService({ secret: SECRET });
    valid = await rsa.sign(claims, { expiresInSeconds: 60, now: NOW });
  });

  it('alg "none" (unsigned token), with and without kid, on both kinds of service', async () => {
    const payload = { ...claims, iat: NOW_S, exp: NOW_S + 60 };
    for (const service of [rsa, hs]) {
      expect((await rejection(service, forge({ alg: 'none', typ: 'JWT' }, payload))).code).toBe('alg_not_allowed');
      expect((await rejection(service, forge({ alg: 'none', kid: 'rsa-1' }, payload))).code).toBe('alg_not_allowed');
      expect((await rejection(service, forge({ alg: 'None' }, payload))).code).toBe('alg_not_allowed');
    }
  });

  it('HS256 token against an RS256-only service, HMAC-keyed with the public key (alg confusion)', async () => {
    const payload = { ...claims, role: 'service_role', iat: NOW_S, exp: NOW_S + 60 };
    const publicPem = createPublicKey({ key: rsaJwk as never, format: 'jwk' }).export({ type: 'spki', format: 'pem' }) as string;
    const publicJwkJson = JSON.stringify(rsa.jwks().keys[0]);
    for (const hmacKey of [publicPem, publicJwkJson, Buffer.from(publicPem)]) {
      for (const header of [{ alg: 'HS256', typ: 'JWT' }, { alg: 'HS256', typ: 'JWT', kid: 'rsa-1' }]) {
        expect((await rejection(rsa, forge(header, payload, hmacKey))).code).toBe('alg_not_allowed');
      }
    }
    // Also when the service does accept HS256 (migration): a kid naming the RSA key never selects HMAC.
    const mixed = await createJwtService({ secret: SECRET, keys: [rsaJwk] });
    expect((await rejection(mixed, forge({ alg: 'HS256', kid: 'rsa-1' }, payload, publicPem))).code).toBe('alg_not_allowed');
    expect((await rejection(mixed, forge({ alg: 'HS256' }, payload, publicPem))).code).toBe('bad_signature');
  });

  it('an algorithm that is not configured', async () => {
    const es = await createJwtService({ keys: [await privateJwk('ES256', 'rsa-1')] });
    const esToken = await es.sign(claims, { expiresInSeconds: 60, now: NOW });
    expect((await rejection(rsa, esToken)).code).toBe('alg_not_allowed');
    expect((await rejection(hs, valid)).code).toBe('alg_not_allowed');
    expect((await rejection(rsa, await hs.sign(claims, { expiresInSeconds: 60, now: NOW }))).code).toBe('alg_not_allowed');
  });

  it('an unknown kid, and an asymmetric token without kid', async () => {
    const stranger = await createJwtService({ keys: [await privateJwk('RS256', 'stranger', { fresh: true })] });
    const token = await stranger.sign(claims, { expiresInSeconds: 60, now: NOW });
    expect((await rejection(rsa, token)).code).toBe('unknown_kid');

    const [h, p, s] = valid.split('.') as [string, string, string];
    const headerWithoutKid = Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JWT' })).toString('base64url');
    expect((await rejection(rsa, `${headerWithoutKid}.${p}.${s}`)).code).toBe('unknown_kid');
    expect(h).not.toBe(headerWithoutKid);
  });

  it('a tampered signature or payload, and a token signed with another secret', async () => {
    const [h, p, s] = valid.split('.') as [string, string, string];
    const flipped = s.slice(0, 10) + (s[10] === 'A' ? 'B' : 'A') + s.slice(11);
    expect((await rejection(rsa, `${h}.${p}.${flipped}`)).code).toBe('bad_signature');
    const elevated = Buffer.from(JSON.stringify({ ...claims, role: 'service_role', iat: NOW_S, exp: NOW_S + 60 })).toString('base64url');
    expect((await rejection(rsa, `${h}.${elevated}.${s}`)).code).toBe('bad_signature');
    expect((await rejection(rsa, `${h}.${p}.`)).code).toBe('bad_signature');

    const other = await createJwtService({ secret: 'another-secret-another-secret-another' });
    expect((await rejection(hs, await other.sign(claims, { expiresInSeconds: 60, now: NOW }))).code).toBe('bad_signature');
  });

  it('expired at exactly exp and later (injected now); valid one second before', async () => {
    const token = await hs.sign(claims, { expiresInSeconds: 60, now: NOW });
    await expect(hs.verify(token, { now: new Date((NOW_S + 59) * 1000) })).resolves.toMatchObject(claims);
    expect((await rejection(hs, token, { now: new Date((NOW_S + 60) * 1000) })).code).toBe('expired');
    expect((await rejection(hs, token, { now: new Date((NOW_S + 86400) * 1000) })).code).toBe('expired');
  });

  it('not yet valid (nbf in the future), missing exp, wrong audience', async () => {
    const future = await hs.sign({ ...claims, nbf: NOW_S + 30 }, { expiresInSeconds: 60, now: NOW });
    expect((await rejection(hs, future)).code).toBe('not_yet_valid');
    expect((await rejection(hs, forge({ alg: 'HS256' }, { ...claims, iat: NOW_S }, SECRET))).code).toBe('claim_invalid');
    const token = await hs.sign(claims, { expiresInSeconds: 60, now: NOW });
    expect((await rejection(hs, token, { audience: 'other' })).code).toBe('claim_invalid');
    expect((await rejection(hs, token, { issuer: 'https://elsewhere' })).code).toBe('claim_invalid');
  });

  it.each([
    ['empty', ''],
    ['one part', 'abc'],
    ['two parts', 'abc.def'],
    ['four parts', 'a.b.c.d'],
    ['bad characters', '!!!.@@@.###'],
    ['header not JSON', 'bm90IGpzb24.e30.c2ln'],
    ['header without alg', `${Buffer.from('{"typ":"JWT"}').toString('base64url')}.e30.c2ln`],
    ['header is an array', `${Buffer.from('[1]').toString('base64url')}.e30.c2ln`],
    ['whitespace', ' eyJhbGciOiJIUzI1NiJ9.e30.c2ln'],
  ])('malformed: %s', async (_name, token) => {
    expect((await rejection(hs, token)).code).toBe('malformed');
  });

  it('malformed payload with a valid signature', async () => {
    for (const payload of ['not json', '[1,2]', '"str"']) {
      const input = `${Buffer.from('{"alg":"HS256"}').toString('base64url')}.${Buffer.from(payload).toString('base64url')}`;
      const sig = (await import('node:crypto')).createHmac('sha256', SECRET).update(input).digest('base64url');
      expect((await rejection(hs, `${input}.${sig}`)).code).toBe('malformed');
    }
  });

  it('messages never contain key material', async () => {
    const err = await rejection(rsa, 'abc');
    expect(err.message).not.toContain(String(rsaJwk.d));
    expect(err.name).toBe('TokenError');
  });
});

describe('jwks()', () => {
  it('publishes public keys only, with kid, alg, use and key_ops', async () => {
    const keys = [await privateJwk('RS256', 'r'), await privateJwk('ES256', 'e', { sign: false }), await privateJwk('EdDSA', 'd', { sign: false })];
    const service = await createJwtService({ secret: SECRET, keys: [...keys, { kty: 'oct', kid: 'o', k: Buffer.from(SECRET).toString('base64url'), key_ops: ['verify'] }] });
    const published = service.jwks().keys;
    expect(published.map((k) => [k.kid, k.alg])).toEqual([['r', 'RS256'], ['e', 'ES256'], ['d', 'EdDSA']]);
    for (const jwk of published) {
      for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth']) expect(jwk).not.toHaveProperty(member);
      expect(jwk).toMatchObject({ use: 'sig', key_ops: ['verify'] });
    }
    expect(JSON.stringify(service.jwks())).not.toContain(String(keys[0]!.d));
    // Callers cannot corrupt the service's copy.
    published[0]!.kid = 'changed';
    expect(service.jwks().keys[0]!.kid).toBe('r');
  });

  it('verifies with an oct key from JWT_KEYS by kid', async () => {
    const service = await createJwtService({ keys: [{ kty: 'oct', kid: 'hmac', k: Buffer.from(SECRET).toString('base64url'), key_ops: ['sign', 'verify'] }] });
    const token = await service.sign(claims, { expiresInSeconds: 60, now: NOW });
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'HS256', kid: 'hmac' });
    expect(await service.verify(token, { now: NOW })).toMatchObject(claims);
    expect(service.jwks()).toEqual({ keys: [] });
  });
});

describe('key configuration errors', () => {
  it.each<[string, () => Promise<object>, RegExp]>([
    ['nothing configured', async () => ({}), /configure a JWT secret or JWT keys/],
    ['not JSON', async () => ({ keys: '[{' }), /not valid JSON/],
    ['not an array', async () => ({ keys: '{"kty":"RSA"}' }), /must be a JSON array/],
    ['empty', async () => ({ keys: '[]' }), /is empty/],
    ['missing kid', async () => ({ keys: [{ ...(await privateJwk('RS256', 'x')), kid: undefined }] }), /\[0\] has no kid/],
    ['duplicate kid', async () => ({ keys: [await privateJwk('RS256', 'x'), await privateJwk('ES256', 'x', { sign: false })] }), /duplicate kid "x"/],
    ['no sign key', async () => ({ keys: [await privateJwk('RS256', 'x', { sign: false })] }), /exactly one .* \(found 0\)/],
    ['two sign keys', async () => ({ keys: [await privateJwk('RS256', 'x'), await privateJwk('ES256', 'y')] }), /exactly one .* \(found 2\)/],
    ['unsupported alg', async () => ({ keys: [{ ...(await privateJwk('RS256', 'x')), alg: 'PS256' }] }), /unsupported alg "PS256"/],
    ['alg does not fit kty', async () => ({ keys: [{ ...(await privateJwk('RS256', 'x')), alg: 'ES256' }] }), /does not fit kty "RSA"/],
    ['unsupported curve', async () => ({ keys: [{ kty: 'EC', crv: 'P-384', kid: 'x', key_ops: ['sign'], x: 'a', y: 'b', d: 'c' }] }), /cannot infer alg .* crv "P-384"/],
    ['public sign key', async () => ({ keys: [{ ...(await privateJwk('RS256', 'x')), d: undefined }] }), /signing key must be a private JWK/],
    ['garbage key material', async () => ({ keys: [{ kty: 'RSA', kid: 'x', key_ops: ['sign'], n: 'AQAB', e: 'AQAB', d: 'AQAB' }] }), /kid "x"/],
  ])('%s fails at start-up', async (_name, build, message) => {
    // JSON round trip drops undefined members, as a JWT_KEYS string would not have them.
    const options = JSON.parse(JSON.stringify(await build()));
    await expect(createJwtService(options)).rejects.toThrow(message);
  });

  it('names the key without echoing its material', async () => {
    const jwk = { ...(await privateJwk('RS256', 'x')), alg: 'ES256' };
    const err = await createJwtService({ keys: [jwk] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JwtKeyConfigError);
    expect((err as Error).message).toBe('JWT_KEYS[0] (kid "x"): alg "ES256" does not fit kty "RSA"');
    const missing = await createJwtService({ keys: [{ kty: 'RSA' }] }).catch((e: unknown) => e);
    expect((missing as Error).message).toBe('JWT_KEYS[0] has no kid');
  });
});
