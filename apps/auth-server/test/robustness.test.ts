// Every bad input gets a clear 4xx in the service's error shape: never a 500, never a crash.
// Drives every route of routes/index.ts over real HTTP on PostgreSQL with malformed bodies,
// wrong field types, NUL characters, lone surrogates, huge strings and numbers, bad UUIDs and
// query parameters, in both error shapes, and checks that rejected writes left nothing behind.
import { sql } from 'kysely';
import { startEmailTestServer, type EmailTestServer } from './helpers/email-server';
import { call } from './helpers/http';
import { startSmsProvider, type FakeSmsProvider } from './helpers/sms-provider';
import { signIn, uniqueEmail } from './helpers/users';
import { signingKeys } from './oauth-server/helpers';

jest.setTimeout(240_000);

type Auth = 'none' | 'user' | 'admin';
interface Route {
  method: string;
  path: string;
  auth: Auth;
  /** Body fields the route reads (string fields unless listed in `objects` / `booleans`). */
  fields?: string[];
  objects?: string[];
  booleans?: string[];
}

const USER_ID_PATH = '/admin/users/:id';
const ROUTES: Route[] = [
  { method: 'GET', path: '/health', auth: 'none' },
  { method: 'GET', path: '/health/live', auth: 'none' },
  { method: 'POST', path: '/token?grant_type=id_token', auth: 'none', fields: ['provider', 'id_token', 'access_token', 'nonce'] },
  { method: 'POST', path: '/token?grant_type=web3', auth: 'none', fields: ['chain', 'message', 'signature'] },
  { method: 'GET', path: '/web3/nonce', auth: 'none' },
  // The hosted pages' cookie session (routes/hosted-session.ts).
  { method: 'POST', path: '/hosted/session', auth: 'none', fields: ['refresh_token', 'redirect_to'] },
  { method: 'POST', path: '/hosted/session/refresh', auth: 'none' },
  { method: 'POST', path: '/hosted/session/end', auth: 'none' },
  // MFA recovery codes (routes/mfa-recovery-codes.ts).
  { method: 'GET', path: '/factors/recovery-codes', auth: 'user' },
  { method: 'POST', path: '/factors/recovery-codes', auth: 'user', fields: ['friendly_name'] },
  { method: 'POST', path: '/factors/recovery-codes/regenerate', auth: 'user' },
  { method: 'POST', path: '/factors/recovery-codes/verify', auth: 'user', fields: ['code'] },
  { method: 'DELETE', path: '/factors/recovery-codes', auth: 'user' },
  { method: 'GET', path: '/user/identities/authorize', auth: 'user' },
  { method: 'DELETE', path: '/user/identities/00000000-0000-0000-0000-000000000000', auth: 'user' },
  { method: 'POST', path: '/sso', auth: 'none', fields: ['provider_id', 'domain', 'redirect_to'] },
  { method: 'GET', path: '/settings', auth: 'none' },
  { method: 'GET', path: '/.well-known/jwks.json', auth: 'none' },
  { method: 'POST', path: '/signup', auth: 'none', fields: ['email', 'phone', 'password', 'code_challenge', 'code_challenge_method'], objects: ['data'] },
  { method: 'POST', path: '/token?grant_type=password', auth: 'none', fields: ['email', 'phone', 'password'] },
  { method: 'POST', path: '/token?grant_type=refresh_token', auth: 'none', fields: ['refresh_token'] },
  { method: 'POST', path: '/token?grant_type=pkce', auth: 'none', fields: ['auth_code', 'code_verifier'] },
  { method: 'GET', path: '/user', auth: 'user' },
  { method: 'PUT', path: '/user', auth: 'user', fields: ['password', 'nonce', 'email', 'code_challenge', 'code_challenge_method'], objects: ['data'] },
  { method: 'GET', path: '/verify', auth: 'none' },
  { method: 'POST', path: '/verify', auth: 'none', fields: ['type', 'token', 'token_hash', 'email', 'phone', 'password', 'redirect_to'] },
  { method: 'POST', path: '/otp', auth: 'none', fields: ['email', 'phone', 'channel', 'code_challenge', 'code_challenge_method'], objects: ['data'], booleans: ['create_user'] },
  { method: 'POST', path: '/magiclink', auth: 'none', fields: ['email', 'code_challenge', 'code_challenge_method'], objects: ['data'] },
  { method: 'POST', path: '/recover', auth: 'none', fields: ['email', 'code_challenge', 'code_challenge_method'] },
  { method: 'POST', path: '/resend', auth: 'none', fields: ['type', 'email', 'phone', 'code_challenge', 'code_challenge_method'] },
  { method: 'GET', path: '/reauthenticate', auth: 'user' },
  { method: 'POST', path: '/invite', auth: 'admin', fields: ['email'], objects: ['data'] },
  { method: 'GET', path: '/admin/users', auth: 'admin' },
  {
    method: 'POST',
    path: '/admin/users',
    auth: 'admin',
    fields: ['id', 'aud', 'role', 'email', 'phone', 'password', 'password_hash', 'ban_duration'],
    objects: ['user_metadata', 'app_metadata'],
    booleans: ['email_confirm', 'phone_confirm'],
  },
  { method: 'GET', path: USER_ID_PATH, auth: 'admin' },
  {
    method: 'POST',
    path: USER_ID_PATH,
    auth: 'admin',
    fields: ['aud', 'role', 'email', 'phone', 'password', 'password_hash', 'ban_duration'],
    objects: ['user_metadata', 'app_metadata'],
    booleans: ['email_confirm', 'phone_confirm'],
  },
  {
    method: 'PUT',
    path: USER_ID_PATH,
    auth: 'admin',
    fields: ['aud', 'role', 'email', 'phone', 'password', 'password_hash', 'ban_duration'],
    objects: ['user_metadata', 'app_metadata'],
    booleans: ['email_confirm', 'phone_confirm'],
  },
  { method: 'DELETE', path: USER_ID_PATH, auth: 'admin', booleans: ['should_soft_delete'] },
  { method: 'GET', path: '/admin/audit', auth: 'admin' },
  { method: 'GET', path: '/admin/config', auth: 'admin' },
  { method: 'POST', path: `${USER_ID_PATH}/logout`, auth: 'admin' },
  { method: 'POST', path: '/admin/generate_link', auth: 'admin', fields: ['type', 'email', 'new_email', 'password', 'redirect_to'], objects: ['data'] },
  { method: 'POST', path: '/logout', auth: 'user' },
  // The OAuth server (routes/oauth-server*.ts).
  { method: 'GET', path: '/.well-known/openid-configuration', auth: 'none' },
  { method: 'GET', path: '/.well-known/oauth-authorization-server', auth: 'none' },
  { method: 'POST', path: '/oauth/clients/register', auth: 'none', fields: ['redirect_uris', 'client_name', 'client_uri', 'logo_uri', 'token_endpoint_auth_method', 'client_type', 'grant_types'] },
  { method: 'GET', path: '/oauth/authorize?client_id=00000000-0000-0000-0000-000000000000&redirect_uri=https://a.example.com/cb', auth: 'none' },
  { method: 'GET', path: '/oauth/authorizations/not-an-id', auth: 'user' },
  { method: 'POST', path: '/oauth/authorizations/not-an-id/consent', auth: 'user', fields: ['action'] },
  { method: 'POST', path: '/oauth/token', auth: 'none', fields: ['grant_type', 'code', 'redirect_uri', 'code_verifier', 'refresh_token', 'resource', 'client_id', 'client_secret'] },
  { method: 'GET', path: '/oauth/userinfo', auth: 'user' },
  { method: 'POST', path: '/oauth/revoke', auth: 'none', fields: ['token', 'token_type_hint', 'client_id', 'client_secret'] },
  { method: 'POST', path: '/oauth/introspect', auth: 'none', fields: ['token', 'token_type_hint', 'client_id', 'client_secret'] },
  { method: 'GET', path: '/user/oauth/grants', auth: 'user' },
  { method: 'DELETE', path: '/user/oauth/grants?client_id=x', auth: 'user' },
  // Custom OAuth/OIDC providers (routes/admin-custom-providers.ts).
  { method: 'GET', path: '/admin/custom-providers?type=oidc', auth: 'admin' },
  {
    method: 'POST',
    path: '/admin/custom-providers',
    auth: 'admin',
    fields: ['provider_type', 'identifier', 'name', 'client_id', 'client_secret', 'issuer', 'discovery_url', 'authorization_url', 'token_url', 'userinfo_url', 'jwks_uri'],
    objects: ['attribute_mapping', 'authorization_params'],
    booleans: ['pkce_enabled', 'enabled', 'email_optional', 'skip_nonce_check'],
  },
  { method: 'GET', path: '/admin/custom-providers/custom:nothing', auth: 'admin' },
  { method: 'PUT', path: '/admin/custom-providers/custom:nothing', auth: 'admin', fields: ['name', 'client_id', 'client_secret', 'issuer'], objects: ['attribute_mapping'], booleans: ['enabled'] },
  { method: 'DELETE', path: '/admin/custom-providers/custom:nothing', auth: 'admin' },
  { method: 'GET', path: '/admin/oauth/clients', auth: 'admin' },
  { method: 'POST', path: '/admin/oauth/clients', auth: 'admin', fields: ['redirect_uris', 'client_name', 'client_uri', 'logo_uri', 'token_endpoint_auth_method', 'client_type', 'grant_types'] },
  { method: 'GET', path: '/admin/oauth/clients/00000000-0000-0000-0000-000000000000', auth: 'admin' },
  { method: 'PUT', path: '/admin/oauth/clients/not-a-uuid', auth: 'admin', fields: ['redirect_uris', 'client_name', 'client_uri', 'logo_uri', 'token_endpoint_auth_method', 'grant_types'] },
  { method: 'DELETE', path: '/admin/oauth/clients/not-a-uuid', auth: 'admin' },
  { method: 'POST', path: '/admin/oauth/clients/00000000-0000-0000-0000-000000000000/regenerate_secret', auth: 'admin' },
];

const NUL = 'a\u0000b';
const LONE_HIGH = 'x\ud800y';
const LONE_LOW = 'x\udc00y';
const LONG = `${'a'.repeat(100_000)}@example.com`;

/** Bad values for a string field. */
const BAD_STRINGS: unknown[] = [12345, -1, 0.5, 1e308, true, {}, { a: 1 }, [], ['x'], NUL, `${NUL}@example.com`, LONE_HIGH, LONE_LOW, LONG, ' ', '\u0000'];
/** Bad values for an object (metadata) field. */
const BAD_OBJECTS: unknown[] = [
  'text',
  12,
  true,
  [],
  [1, 2],
  { a: NUL },
  { [NUL]: 'v' },
  { nested: { deep: ['x', NUL] } },
  { a: LONE_HIGH },
  { [LONE_LOW]: 1 },
  { big: 1e308, neg: -1e308, frac: 0.1 },
  { long: 'x'.repeat(200_000) },
];
const BAD_BOOLEANS: unknown[] = ['true', 1, 0, {}, [], NUL];

interface Probe {
  what: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

interface Outcome {
  status: number;
  location: string;
  text: string;
  json: unknown;
}

async function send(url: string, probe: Probe): Promise<Outcome> {
  const res = await fetch(url + probe.path, { method: probe.method, headers: probe.headers, body: probe.body, redirect: 'manual' });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, location: res.headers.get('location') ?? '', text, json };
}

/** Undefined when the response is fine; otherwise what is wrong with it. */
function problemWith(outcome: Outcome, newShape: boolean): string | undefined {
  if (outcome.status >= 500) return `status ${outcome.status}: ${outcome.text.slice(0, 200)}`;
  // GET /verify reports errors in the redirect: an unexpected failure there is a 500 in disguise.
  if (/[#&?]error_code=unexpected_failure/.test(outcome.location)) return `redirect to a 500: ${outcome.location.slice(0, 200)}`;
  if (outcome.status < 400) return undefined;
  const body = outcome.json as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object') return `status ${outcome.status} without a JSON error body: ${outcome.text.slice(0, 200)}`;
  if (typeof body.error === 'string' && typeof body.error_description === 'string') return undefined; // OAuth shape
  if (newShape) {
    if (typeof body.code !== 'string' || typeof body.message !== 'string') return `not the 2024-01-01 shape: ${outcome.text.slice(0, 200)}`;
  } else if (body.code !== outcome.status || typeof body.error_code !== 'string' || typeof body.msg !== 'string') {
    return `not the legacy shape: ${outcome.text.slice(0, 200)}`;
  }
  return undefined;
}

/** Runs the probes a few at a time and returns every problem found. */
async function runAll(url: string, probes: Probe[], concurrency = 6): Promise<string[]> {
  const problems: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < probes.length) {
      const probe = probes[next++]!;
      const newShape = probe.headers['x-supabase-api-version'] === '2024-01-01';
      let outcome: Outcome;
      try {
        outcome = await send(url, probe);
      } catch (err) {
        problems.push(`${probe.method} ${probe.path} [${probe.what}]: request failed: ${String(err)}`);
        continue;
      }
      const problem = problemWith(outcome, newShape);
      if (problem) problems.push(`${probe.method} ${probe.path} [${probe.what}]: ${problem}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return problems;
}

function describeValue(value: unknown): string {
  const s = JSON.stringify(value) ?? String(value);
  return s.length > 40 ? `${s.slice(0, 40)}…(${s.length})` : s;
}

// Twice: with autoconfirm (sign-ups answer sessions) and without (they send confirmation mail),
// both with phone sign-ups and anonymous users enabled, so each branch sees the bad input.
describe.each([
  ['autoconfirm on', 'true'],
  ['autoconfirm off', 'false'],
])('robustness (%s): bad input never gives a 500', (_label, autoconfirm) => {
  let server: EmailTestServer;
  let adminToken: string;
  let userToken: string;
  let targetUserId: string;

  let sms: FakeSmsProvider;

  beforeAll(async () => {
    sms = await startSmsProvider('vonage');
    server = await startEmailTestServer({
      env: {
        ...sms.env,
        MAILER_AUTOCONFIRM: autoconfirm,
        EXTERNAL_PHONE_ENABLED: 'true',
        SMS_AUTOCONFIRM: autoconfirm,
        EXTERNAL_ANONYMOUS_USERS_ENABLED: 'true',
        SMTP_MAX_FREQUENCY: '0',
        RATE_LIMIT_EMAIL_SENT: '100000',
        RATE_LIMIT_TOKEN_REFRESH: '100000',
        RATE_LIMIT_OTP: '100000',
        RATE_LIMIT_ANONYMOUS_USERS: '100000',
        RATE_LIMIT_VERIFY: '100000',
        EXTERNAL_WEB3_ETHEREUM_ENABLED: 'true',
        EXTERNAL_WEB3_SOLANA_ENABLED: 'true',
        RATE_LIMIT_WEB3: '100000',
        MFA_RECOVERY_CODES_ENROLL_ENABLED: 'true',
        MFA_RECOVERY_CODES_VERIFY_ENABLED: 'true',
        MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY: '100000',
        OAUTH_SERVER_ENABLED: 'true',
        OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION: 'true',
        RATE_LIMIT_OAUTH_DYNAMIC_CLIENT_REGISTER: '100000',
        JWT_KEYS: signingKeys(),
      },
    });
    adminToken = await server.adminToken();
    userToken = (await freshSession()).access_token;
    targetUserId = (await freshSession()).user.id;
  });

  afterAll(async () => {
    await server?.close();
    await sms?.close();
  });

  /** A confirmed user (made by the admin API, so it works with autoconfirm on or off) and a session. */
  async function freshSession() {
    const email = uniqueEmail('robust');
    const created = await call(server.url, 'POST', '/admin/users', { token: adminToken, body: { email, password: 'password-123', email_confirm: true } });
    if (created.status !== 200) throw new Error(`admin create failed: ${created.status} ${created.text}`);
    return signIn(server.url, email, 'password-123');
  }

  function headersFor(auth: Auth, newShape: boolean, contentType = 'application/json'): Record<string, string> {
    const headers: Record<string, string> = { 'content-type': contentType };
    if (auth === 'admin') headers.authorization = `Bearer ${adminToken}`;
    if (auth === 'user') headers.authorization = `Bearer ${userToken}`;
    if (newShape) headers['x-supabase-api-version'] = '2024-01-01';
    return headers;
  }

  function probesFor(route: Route, prefix: string): Probe[] {
    const path = prefix + route.path.replace(':id', targetUserId);
    const probes: Probe[] = [];
    let flip = false;
    const add = (what: string, body: string | undefined, contentType?: string, at = path) => {
      flip = !flip;
      probes.push({ what, method: route.method, path: at, headers: headersFor(route.auth, flip, contentType), body });
    };
    const withBody = route.method !== 'GET';
    if (withBody) {
      add('invalid JSON', '{"email": ');
      add('JSON array', '[1,2]');
      add('JSON string', '"text"');
      add('JSON number', '42');
      add('JSON null', 'null');
      add('empty body', '');
      add('whitespace body', '   ');
      add('wrong content-type', 'email=a@b.c&password=x', 'text/plain');
      add('form body', 'email=a%00b@example.com&password=x%00', 'application/x-www-form-urlencoded');
      add('JSON with escaped NUL key', '{"\\u0000": 1}');
      add('JSON with lone surrogate escape', '{"email": "\\ud800@example.com", "data": {"k": "\\udfff"}}');
      add('deeply nested JSON', `${'['.repeat(5000)}${']'.repeat(5000)}`);
      add('invalid UTF-8 bytes', Buffer.from([0x7b, 0x22, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]).toString('latin1'));
      for (const field of route.fields ?? []) {
        for (const value of BAD_STRINGS) add(`${field}=${describeValue(value)}`, JSON.stringify({ email: uniqueEmail('r'), password: 'password-123', [field]: value }));
      }
      for (const field of route.objects ?? []) {
        for (const value of BAD_OBJECTS) add(`${field}=${describeValue(value)}`, JSON.stringify({ email: uniqueEmail('r'), password: 'password-123', [field]: value }));
      }
      for (const field of route.booleans ?? []) {
        for (const value of BAD_BOOLEANS) add(`${field}=${describeValue(value)}`, JSON.stringify({ email: uniqueEmail('r'), [field]: value }));
      }
    }
    const sep = path.includes('?') ? '&' : '?';
    add('unknown query params', withBody ? '{}' : undefined, undefined, `${path}${sep}unknown=1&x[y]=2&z=%00`);
    add('NUL in query', withBody ? '{}' : undefined, undefined, `${path}${sep}redirect_to=%00&filter=%00&token=%00&type=%00&scope=%00`);
    add('bad escape in query', withBody ? '{}' : undefined, undefined, `${path}${sep}a=%zz&b=%`);
    add('lone surrogate in query', withBody ? '{}' : undefined, undefined, `${path}${sep}filter=%ED%A0%80&redirect_to=%ED%A0%80`);
    return probes;
  }

  it.each(ROUTES.map((r) => [`${r.method} ${r.path}`, r] as const))('%s', async (_name, route) => {
    const probes = probesFor(route, '');
    // A sample at /auth/v1 as well: the same router, but the prefix must not change anything.
    if (['/signup', '/admin/users', '/verify', '/token?grant_type=password', '/user'].includes(route.path)) probes.push(...probesFor(route, '/auth/v1'));
    expect(await runAll(server.url, probes)).toEqual([]);
  });

  it('query parameters: bad grant types, scopes, pages, filters, verify links', async () => {
    userToken = (await freshSession()).access_token; // the /logout probes ended the first session
    const probes: Probe[] = [];
    const add = (method: string, path: string, auth: Auth, body?: string) => {
      for (const newShape of [false, true]) probes.push({ what: 'query', method, path, headers: headersFor(auth, newShape), body });
    };
    for (const grant of ['', 'nope', '%00', 'password%00', 'x'.repeat(10_000), 'id_token', 'authorization_code']) add('POST', `/token?grant_type=${grant}`, 'none', '{}');
    add('POST', '/token?grant_type=password&grant_type=refresh_token', 'none', '{}');
    add('POST', '/token', 'none', JSON.stringify({ grant_type: 123 }));
    add('POST', '/token', 'none', JSON.stringify({ grant_type: ['password'] }));
    for (const v of ['-1', '0', '0.5', '1e308', '99999999999999999999', 'abc', '%00', '1&page=2']) {
      add('GET', `/admin/users?page=${v}&per_page=${v}`, 'admin');
      add('GET', `/admin/audit?page=${v}&per_page=${v}`, 'admin');
      add('GET', `/admin/audit?user_id=${v}&actor_id=${v}&action=${v}`, 'admin');
      add('GET', `/admin/users?limit=5&confirmed=${v}&banned=${v}&anonymous=${v}&has_mfa=${v}&provider=${v}`, 'admin');
    }
    for (const v of ['%00', '%25', '_', '\\', "'", 'x'.repeat(12_000), '%ED%A0%80']) add('GET', `/admin/users?filter=${v}`, 'admin');
    for (const v of ['%00', 'nope', 'email', 'created_at%20sideways', 'created_at%20desc%00']) add('GET', `/admin/users?sort=${v}`, 'admin');
    add('GET', '/admin/users?filter=a&filter=b&page=1&page=2', 'admin');
    add('GET', '/admin/users?after=%00', 'admin');
    add('GET', '/admin/users?after=not-a-cursor&per_page=5', 'admin');
    for (const id of ['not-a-uuid', '00000000-0000-0000-0000-000000000000', '%00', 'x'.repeat(5000), "1'%20or%20'1'='1", '%ED%A0%80']) {
      add('GET', `/admin/users/${id}`, 'admin');
      add('PUT', `/admin/users/${id}`, 'admin', '{}');
      add('DELETE', `/admin/users/${id}`, 'admin', '{}');
      add('POST', `/admin/users/${id}`, 'admin', JSON.stringify({ email: uniqueEmail('id') }));
    }
    for (const scope of ['nope', '%00', '', 'x'.repeat(5000)]) add('POST', `/logout?scope=${scope}`, 'none', '');
    for (const q of ['token=%00&type=signup', 'token=x&type=%00', 'token=x&type=nope', 'token_hash=%00&type=magiclink', 'token=x&type=signup&redirect_to=%00', 'type=recovery', 'token=' + 'x'.repeat(12_000) + '&type=invite']) {
      add('GET', `/verify?${q}`, 'none');
    }
    // Malformed credentials and version headers.
    for (const auth of ['Bearer', 'Bearer x.y.z', 'Basic abc', 'Bearer %00', 'Bearer ' + 'a'.repeat(12_000)]) {
      probes.push({ what: `authorization ${auth.slice(0, 20)}`, method: 'GET', path: '/user', headers: { authorization: auth } });
      probes.push({ what: `authorization ${auth.slice(0, 20)}`, method: 'GET', path: '/admin/users', headers: { authorization: auth } });
    }
    for (const [name, value] of [
      ['user-agent', 'u'.repeat(12_000)],
      ['sb-forwarded-for', 'not-an-ip, 1.2.3.4'],
      ['sb-forwarded-for', '9'.repeat(200)],
      ['x-request-id', 'r'.repeat(8_000)],
      ['referer', 'javascript:alert(1)'],
    ] as const) {
      probes.push({
        what: `header ${name}`,
        method: 'POST',
        path: '/signup',
        headers: { 'content-type': 'application/json', [name]: value },
        body: JSON.stringify({ email: uniqueEmail('hdr'), password: 'password-123' }),
      });
    }
    // A long array once per kind of route (the NUL check must not spread it onto the call stack).
    const longArray = new Array(400_000).fill(1);
    add('POST', '/signup', 'none', JSON.stringify({ email: uniqueEmail('long'), password: 'password-123', data: { list: longArray } }));
    add('PUT', '/user', 'user', JSON.stringify({ data: { list: longArray } }));
    add('POST', '/admin/users', 'admin', JSON.stringify({ email: uniqueEmail('long'), app_metadata: { list: longArray } }));
    for (const version of ['garbage', '9999-99-99', '2024-13-45', '']) {
      probes.push({ what: `version ${version}`, method: 'POST', path: '/signup', headers: { 'content-type': 'application/json', 'x-supabase-api-version': version }, body: '[' });
    }
    const problems = await runAll(server.url, probes);
    expect(problems).toEqual([]);
  });

  it('an oversized body is 413 in either shape, on public, user and admin routes', async () => {
    userToken = (await freshSession()).access_token; // the /logout probes ended the first session
    const big = JSON.stringify({ email: uniqueEmail(), password: 'password-123', data: { blob: 'x'.repeat(1024 * 1024 + 10) } });
    for (const [method, path, auth] of [
      ['POST', '/signup', 'none'],
      ['POST', '/token?grant_type=password', 'none'],
      ['PUT', '/user', 'user'],
      ['POST', '/admin/users', 'admin'],
      ['POST', '/auth/v1/otp', 'none'],
    ] as const) {
      for (const newShape of [false, true]) {
        const outcome = await send(server.url, { what: '413', method, path, headers: headersFor(auth, newShape), body: big });
        expect(outcome.status).toBe(413);
        expect(problemWith(outcome, newShape)).toBeUndefined();
      }
    }
  });

  it('rejected writes leave nothing behind', async () => {
    const count = async (table: string) => {
      const row = await sql<{ n: string }>`select count(*)::text as n from ${sql.table(table)}`.execute(server.deps.db);
      return Number(row.rows[0]!.n);
    };
    const before = { users: await count('auth.users'), identities: await count('auth.identities'), audit: await count('auth.audit_log_entries') };
    const email = uniqueEmail('nothing');
    const attempts: Array<[string, string, Auth, unknown]> = [
      ['POST', '/signup', 'none', { email, password: 'password-123', data: { a: 'x\u0000y' } }],
      ['POST', '/signup', 'none', { email, password: 'password-123', data: { ['k\u0000']: 1 } }],
      ['POST', '/signup', 'none', { email, password: 'password-123', data: { a: LONE_HIGH } }],
      ['POST', '/signup', 'none', { email: `${NUL}@example.com`, password: 'password-123' }],
      ['POST', '/signup', 'none', { email, password: 'password-123', data: { deep: JSON.parse(`${'['.repeat(2000)}"${'\\u0000'}"${']'.repeat(2000)}`) } }],
      ['POST', '/otp', 'none', { email, data: { a: NUL } }],
      ['POST', '/magiclink', 'none', { email, data: { a: LONE_LOW } }],
      ['POST', '/admin/users', 'admin', { email, password: 'password-123', user_metadata: { a: NUL } }],
      ['POST', '/admin/users', 'admin', { email, password: 'password-123', app_metadata: { [LONE_HIGH]: 1 } }],
      ['POST', '/invite', 'admin', { email, data: { a: NUL } }],
      ['POST', '/admin/generate_link', 'admin', { type: 'signup', email, password: 'password-123', data: { a: NUL } }],
    ];
    for (const [method, path, auth, body] of attempts) {
      for (const newShape of [false, true]) {
        const outcome = await send(server.url, { what: 'nothing', method, path, headers: headersFor(auth, newShape), body: JSON.stringify(body) });
        expect(outcome.status).toBe(400);
        expect(problemWith(outcome, newShape)).toBeUndefined();
      }
    }
    expect({ users: await count('auth.users'), identities: await count('auth.identities'), audit: await count('auth.audit_log_entries') }).toEqual(before);
  });

  it('a NUL in PUT /user data leaves the metadata unchanged', async () => {
    const session = await freshSession();
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${session.access_token}` };
    const ok = await send(server.url, { what: 'set', method: 'PUT', path: '/user', headers, body: JSON.stringify({ data: { keep: 1 } }) });
    expect(ok.status).toBe(200);
    const bad = await send(server.url, { what: 'nul', method: 'PUT', path: '/user', headers, body: JSON.stringify({ data: { keep: 2, bad: NUL } }) });
    expect(bad.status).toBe(400);
    expect((bad.json as { error_code: string }).error_code).toBe('validation_failed');
    const after = await send(server.url, { what: 'get', method: 'GET', path: '/user', headers });
    expect((after.json as { user_metadata: Record<string, unknown> }).user_metadata).toMatchObject({ keep: 1 });
  });
});
