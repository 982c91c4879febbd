// A provider's OAuth and profile API as a real HTTP server on 127.0.0.1, one per provider (their paths
// collide), answering at the same paths below its base URL as the real host does. The authorize endpoint
// consents at once (302 back with code and state); the token endpoint checks the code, the redirect URI,
// the client's authentication in the provider's way and, for twitter, the PKCE verifier; profile endpoints
// check the bearer token (and any header the provider requires) and answer in the provider's JSON shape.
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeUser {
  id: string;
  email?: string;
  verified: boolean;
  name: string;
  avatar: string;
  login: string;
}

export type RestProviderName =
  | 'github' | 'gitlab' | 'bitbucket' | 'discord' | 'facebook' | 'figma' | 'notion' | 'snapchat'
  | 'spotify' | 'slack' | 'twitch' | 'twitter' | 'workos';

interface Route {
  authorize: string;
  token: string;
  /** basic: client credentials in Authorization; json: the token request body is JSON. */
  auth: 'form' | 'basic' | 'basic-json';
  profile: Record<string, (user: FakeUser, req: IncomingMessage, client: { id: string; secret: string }) => unknown>;
  /** Extra fields of the token answer. */
  tokenExtra?: (user: FakeUser) => Record<string, unknown>;
}

const ROUTES: Record<RestProviderName, Route> = {
  github: {
    authorize: '/login/oauth/authorize', token: '/login/oauth/access_token', auth: 'form',
    profile: {
      '/api/v3/user': (u) => ({ id: Number(u.id), login: u.login, name: u.name, avatar_url: u.avatar, email: null }),
      '/api/v3/user/emails': (u) => (u.email ? [{ email: 'old@example.org', primary: false, verified: false }, { email: u.email, primary: true, verified: u.verified }] : []),
    },
  },
  gitlab: {
    authorize: '/oauth/authorize', token: '/oauth/token', auth: 'form',
    profile: {
      '/api/v4/user': (u) => ({ id: Number(u.id), username: u.login, name: u.name, avatar_url: u.avatar, email: u.email, confirmed_at: u.verified ? '2026-01-01T00:00:00Z' : null }),
      '/api/v4/user/emails': () => [],
    },
  },
  bitbucket: {
    authorize: '/site/oauth2/authorize', token: '/site/oauth2/access_token', auth: 'form',
    profile: {
      '/2.0/user': (u) => ({ uuid: `{${u.id}}`, username: u.login, display_name: u.name, links: { avatar: { href: u.avatar } } }),
      '/2.0/user/emails': (u) => ({ values: u.email ? [{ email: u.email, is_primary: true, is_confirmed: u.verified }] : [] }),
    },
  },
  discord: {
    authorize: '/api/oauth2/authorize', token: '/api/oauth2/token', auth: 'form',
    profile: { '/api/users/@me': (u) => ({ id: u.id, username: u.login, global_name: u.name, avatar: 'abc123', email: u.email, verified: u.verified }) },
  },
  facebook: {
    authorize: '/dialog/oauth', token: '/oauth/access_token', auth: 'form',
    profile: {
      '/me': (u, req, client) => {
        const url = new URL(req.url ?? '/', 'http://x');
        const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
        const proof = createHmac('sha256', client.secret).update(token).digest('hex');
        if (url.searchParams.get('appsecret_proof') !== proof) return { status: 400, body: { error: { message: 'Invalid appsecret_proof' } } };
        return { id: u.id, name: u.name, email: u.verified ? u.email : undefined, picture: { data: { url: u.avatar } } };
      },
    },
  },
  figma: {
    authorize: '/oauth', token: '/v1/oauth/token', auth: 'form',
    profile: { '/v1/me': (u) => ({ id: u.id, handle: u.name, email: u.email, img_url: u.avatar }) },
  },
  notion: {
    authorize: '/v1/oauth/authorize', token: '/v1/oauth/token', auth: 'basic-json',
    profile: {
      '/v1/users/me': (u, req) =>
        req.headers['notion-version'] ? { bot: { owner: { type: 'user', user: { id: u.id, name: u.name, avatar_url: u.avatar, person: { email: u.email } } } } } : { status: 400, body: { message: 'Notion-Version header missing' } },
    },
  },
  snapchat: {
    authorize: '/accounts/oauth2/auth', token: '/accounts/oauth2/token', auth: 'form',
    profile: { '/v1/me': (u) => ({ data: { me: { externalId: u.id, displayName: u.name, bitmoji: { avatar: u.avatar } } } }) },
  },
  spotify: {
    authorize: '/authorize', token: '/api/token', auth: 'form',
    profile: { '/v1/me': (u) => ({ id: u.id, display_name: u.name, email: u.email, images: [{ url: u.avatar }] }) },
  },
  slack: {
    authorize: '/oauth/authorize', token: '/api/oauth.access', auth: 'form',
    profile: { '/api/users.identity': (u) => ({ ok: true, user: { id: u.id, name: u.name, email: u.email, image_192: u.avatar }, team: { id: 'T1' } }) },
  },
  twitch: {
    authorize: '/oauth2/authorize', token: '/oauth2/token', auth: 'form',
    profile: {
      '/helix/users': (u, req, client) =>
        req.headers['client-id'] === client.id
          ? { data: [{ id: u.id, login: u.login, display_name: u.name, email: u.email, profile_image_url: u.avatar }] }
          : { status: 401, body: { message: 'Client-Id header required' } },
    },
  },
  twitter: {
    authorize: '/i/oauth2/authorize', token: '/2/oauth2/token', auth: 'basic',
    profile: { '/2/users/me': (u) => ({ data: { id: u.id, name: u.name, username: u.login, profile_image_url: u.avatar, confirmed_email: u.email } }) },
  },
  workos: {
    authorize: '/sso/authorize', token: '/sso/token', auth: 'form',
    profile: {},
    tokenExtra: (u) => ({ profile: { id: u.id, email: u.email, first_name: u.name.split(' ')[0], last_name: u.name.split(' ')[1] } }),
  },
};

export interface RestProvider {
  name: RestProviderName;
  url: string;
  client: { id: string; secret: string; redirectUri: string };
  /** The user who consents next. */
  user: FakeUser;
  /** Every authorize request's query, newest last. */
  authorizeRequests: URLSearchParams[];
  /** The next authorize answers this error instead of a code. */
  failNextAuthorize?: { error: string; description: string };
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startRestProvider(name: RestProviderName, redirectUri: string): Promise<RestProvider> {
  const route = ROUTES[name];
  const codes = new Map<string, { user: FakeUser; redirectUri: string; challenge?: string }>();
  const tokens = new Map<string, FakeUser>();
  const provider: RestProvider = {
    name, url: '', authorizeRequests: [],
    client: { id: `${name}-client`, secret: `${name}-secret`, redirectUri },
    user: { id: '1001', email: `${name}.user@example.com`, verified: true, name: 'Ada Lovelace', avatar: 'https://img.example/ada.png', login: 'ada' },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const send = (res: import('node:http').ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (req.method === 'GET' && url.pathname === route.authorize) {
        provider.authorizeRequests.push(url.searchParams);
        const back = new URL(url.searchParams.get('redirect_uri') ?? '');
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        if (provider.failNextAuthorize) {
          back.searchParams.set('error', provider.failNextAuthorize.error);
          back.searchParams.set('error_description', provider.failNextAuthorize.description);
          provider.failNextAuthorize = undefined;
        } else {
          const code = randomUUID();
          codes.set(code, { user: { ...provider.user }, redirectUri: url.searchParams.get('redirect_uri') ?? '', challenge: url.searchParams.get('code_challenge') ?? undefined });
          back.searchParams.set('code', code);
        }
        res.writeHead(302, { location: back.toString() }).end();
        return;
      }
      if (req.method === 'POST' && url.pathname === route.token) {
        const raw = await readBody(req);
        const body: Record<string, string> = route.auth === 'basic-json' ? JSON.parse(raw) : Object.fromEntries(new URLSearchParams(raw));
        const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        const [id, secret] = basic ? Buffer.from(basic, 'base64').toString().split(':').map(decodeURIComponent) : [body.client_id, body.client_secret];
        if (route.auth !== 'form' && !basic) return send(res, 401, { error: 'invalid_client', error_description: 'Basic authentication required' });
        if (id !== provider.client.id || secret !== provider.client.secret) return send(res, 401, { error: 'invalid_client', error_description: 'bad client credentials' });
        const grant = codes.get(body.code ?? '');
        codes.delete(body.code ?? '');
        if (!grant || body.grant_type !== 'authorization_code' || body.redirect_uri !== grant.redirectUri) {
          return send(res, 400, { error: 'invalid_grant', error_description: 'unknown code' });
        }
        if (grant.challenge && createHash('sha256').update(body.code_verifier ?? '').digest('base64url') !== grant.challenge) {
          return send(res, 400, { error: 'invalid_grant', error_description: 'code_verifier does not match' });
        }
        const accessToken = `${name}-at-${randomUUID()}`;
        tokens.set(accessToken, grant.user);
        return send(res, 200, { access_token: accessToken, refresh_token: `${name}-rt`, token_type: 'bearer', ...route.tokenExtra?.(grant.user) });
      }
      const handler = req.method === 'GET' ? route.profile[url.pathname] : undefined;
      if (handler) {
        const user = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
        if (!user) return send(res, 401, { message: 'Bad credentials' });
        const answer = handler(user, req, provider.client) as { status?: number; body?: unknown };
        if (typeof answer?.status === 'number') return send(res, answer.status, answer.body);
        return send(res, 200, answer);
      }
      send(res, 404, { message: `not found: ${req.method} ${url.pathname}` });
    })().catch((err: unknown) => send(res, 500, { message: String(err) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  provider.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return provider;
}

/** The EXTERNAL_<X>_* settings that point a provider at a fake one. */
export function providerEnv(provider: Pick<RestProvider, 'name' | 'url' | 'client'>): Record<string, string> {
  const key = `EXTERNAL_${provider.name.toUpperCase()}`;
  return {
    [`${key}_ENABLED`]: 'true',
    [`${key}_CLIENT_ID`]: provider.client.id,
    [`${key}_SECRET`]: provider.client.secret,
    [`${key}_REDIRECT_URI`]: provider.client.redirectUri,
    [`${key}_URL`]: provider.url,
  };
}
