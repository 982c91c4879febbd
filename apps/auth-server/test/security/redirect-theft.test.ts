// redirect_to host theft (issue 26): with `https://*.trusted.example/**` allowed, URLs that a raw-string glob
// accepts but a browser sends to another host must end at SITE_URL, through the mailed magic link (whose
// redirect_to /verify decodes once more) and through the OAuth callback, which both carry the session.
import { call } from '../helpers/http';
import { codeOf, follow, linkOf, startEmailTestServer, type EmailTestServer } from '../helpers/email-server';
import { signInThroughProvider } from '../helpers/oauth-browser';
import { providerEnv, startRestProvider, type RestProvider } from '../helpers/rest-provider';
import { uniqueEmail } from '../helpers/users';

const SITE = 'http://localhost:3000';
const THEFTS = [
  'https://evil%2eexample?.trusted.example/',
  'https://evil。example?.trusted.example/',
  'https://evil?.trusted.example/',
  'https://evil%252eexample?.trusted.example/',
  'https://trusted.example@evil/',
  'https://a.trusted.example\\@evil.example/',
  'HTTPS://EVIL?.Trusted.Example/',
];

let server: EmailTestServer;
let github: RestProvider;

beforeAll(async () => {
  github = await startRestProvider('github', 'http://localhost:9999/callback');
  server = await startEmailTestServer({ env: { SITE_URL: SITE, URI_ALLOW_LIST: 'https://*.trusted.example/**', ...providerEnv(github) } });
}, 90_000);
afterAll(async () => {
  await server?.close();
  await github?.close();
});

/** Where a browser holding `location` goes: the host the WHATWG parser sees. */
const hostOf = (location: string) => new URL(location).host;

it('a listed host still receives the magic link session', async () => {
  const email = uniqueEmail('trusted');
  await call(server.url, 'POST', '/signup', { body: { email, password: 'password-123' } });
  const confirm = await server.smtp.nextMessageTo(email);
  expect((await call(server.url, 'POST', '/verify', { body: { type: 'signup', email, token: codeOf(confirm) } })).status).toBe(200);
  server.clock.advance(61);
  await call(server.url, 'POST', `/magiclink?redirect_to=${encodeURIComponent('https://app.trusted.example/done')}`, { body: { email } });
  const { location } = await follow(linkOf(await server.smtp.nextMessageTo(email)), server.url);
  expect(location.startsWith('https://app.trusted.example/done#access_token=')).toBe(true);
});

it.each(THEFTS)('magic link with redirect_to %s ends at SITE_URL', async (evil) => {
  const email = uniqueEmail('theft');
  await call(server.url, 'POST', `/otp?redirect_to=${encodeURIComponent(evil)}`, { body: { email } });
  const mail = await server.smtp.nextMessageTo(email);
  const { status, location } = await follow(linkOf(mail), server.url);
  expect(status).toBe(303);
  expect(hostOf(location)).toBe('localhost:3000');
  expect(location.startsWith(`${SITE}`)).toBe(true);
});

it.each(THEFTS)('OAuth sign-in with redirect_to %s ends at SITE_URL', async (evil) => {
  const result = await signInThroughProvider(server.url, { provider: 'github', redirect_to: evil });
  expect(hostOf(result.location)).toBe('localhost:3000');
  expect(result.fragment.access_token).toBeDefined();
});
