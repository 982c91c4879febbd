import type { Request } from 'express';
import { z } from 'zod';
import { metaOnlySchema, withMeta } from '../http/envelope';
import { defineRoute, type RouteFamily } from '../http/route';
import { emptyQuery } from '../http/schemas';
import { clearSessionCookie } from '../http/session-cookie';
import { loginResponseSchema, serializeLoginUser } from '../serialize';
import { clientAddressOf } from '../http/client-address';
import { takeLoginAttempt, type LoginAttempt } from '../services/access/login-limits';
import { authenticate, authenticateWithAccessToken, currentLogin } from '../services/access/sessions';
import { startCookieSession } from '../http/session-login';
import { errorExamples } from './examples';

const credentialsBody = z
  .object({
    username: z
      .string()
      .min(1)
      .max(512)
      .refine((v) => !v.includes('\u0000'), 'may not contain NUL characters')
      .meta({ description: '`<user>@<group>`; without `@<group>` the configured default group is used', example: 'alice@example.com' }),
    password: z.string().min(1).max(1024).meta({ example: 'Wh@tA-Decent#P6ssw0rd' }),
  })
  .strict();

const tokenExchangeBody = z
  .object({
    access_token: z.string().min(1).max(16384).meta({ description: "An access token of the auth server (auth.yml); its user's linked DNS user signs in" }),
  })
  .strict();

const loginBody = z.union([credentialsBody, tokenExchangeBody]);

const loginExample = {
  user: { id: 4096, first_name: 'Unit', last_name: 'Test', username: 'unit-test', email: 'unit-test@example.com' },
  group: { id: 4096, name: 'example.com' },
  session: { id: 162 },
  meta: { api: { version: '0.1.0' }, msg: 'you are logged in' },
};

const login = defineRoute({
  method: 'post',
  path: '/session',
  auth: 'none',
  summary: 'Start a session',
  description:
    'Checks the credentials, or exchanges an access token of the auth server when auth.yml enables it, and sets the ' +
    'session cookie (Max-Age=3600, HttpOnly, SameSite=Strict, Path=/). Every credential failure is the same 401.',
  body: loginBody,
  bodyExample: { username: 'unit-test@example.com', password: 'Wh@tA-Decent#P6ssw0rd' },
  badRequest: 'generic',
  responses: {
    200: {
      description: 'Signed in; Set-Cookie carries the session',
      schema: loginResponseSchema,
      example: loginExample,
      headers: {
        'Set-Cookie': {
          description: 'The session cookie (Secure in production)',
          example: 'sid-dnsapi=s%3A…; Max-Age=3600; Expires=Mon, 23 Nov 2026 03:00:00 GMT; HttpOnly; SameSite=Strict; Path=/',
        },
      },
    },
    400: errorExamples.badPayload,
    401: errorExamples.invalidCredentials,
    429: errorExamples.tooManyLogins,
  },
  async handler({ body }, { deps, req, res }) {
    let attempt: LoginAttempt | undefined;
    if ('username' in body) {
      const account = body.username.includes('@') ? body.username : `${body.username}@${deps.config.http.defaultGroup}`;
      attempt = await takeLoginAttempt(deps, { client: clientAddressOf(res) ?? req.socket.remoteAddress ?? '', account });
    }
    const { user, group } = 'access_token' in body
      ? await authenticateWithAccessToken(deps, body.access_token)
      : await authenticate(deps, body.username, body.password);
    await attempt?.succeeded();
    const rowId = await startCookieSession(deps, req, { user, authToken: 'access_token' in body ? body.access_token : undefined });
    return {
      body: withMeta(
        { user: serializeLoginUser(user), group: { id: group.id, name: group.name }, session: { id: rowId } },
        'you are logged in',
      ),
    };
  },
});

const current = defineRoute({
  method: 'get',
  path: '/session',
  auth: 'session',
  summary: 'The current session',
  responses: {
    200: { description: 'The signed-in user, group and session', schema: loginResponseSchema, example: { ...loginExample, meta: { ...loginExample.meta, msg: "here's your session" } } },
    401: errorExamples.missingAuthentication,
  },
  async handler(_input, { deps, caller }) {
    const { user, group } = await currentLogin(deps, caller);
    return {
      body: withMeta(
        { user: serializeLoginUser(user), group: { id: group.id, name: group.name }, session: { id: caller.sessionId } },
        "here's your session",
      ),
    };
  },
});

const logout = defineRoute({
  method: 'delete',
  path: '/session',
  auth: 'session',
  summary: 'End the session',
  description: 'Destroys the session server-side (the old cookie is rejected from now on) and clears the cookie.',
  query: emptyQuery,
  responses: {
    200: {
      description: 'Signed out; Set-Cookie expires the cookie',
      headers: { 'Set-Cookie': { description: 'sid-dnsapi=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; …' } },
      schema: metaOnlySchema, example: { meta: { api: { version: '0.1.0' }, msg: 'You are logged out' } } },
    401: errorExamples.missingAuthentication,
  },
  async handler(_input, { deps, req, res }) {
    await destroy(req);
    clearSessionCookie(res, deps.config.session);
    return { body: withMeta({}, 'You are logged out') };
  },
});

export const sessionRoutes: RouteFamily = {
  name: 'session',
  description: 'Cookie sessions: sign in, inspect, sign out',
  routes: [login, current, logout],
};

function destroy(req: Request): Promise<void> {
  return new Promise((resolve, reject) => req.session.destroy((err) => (err ? reject(err) : resolve())));
}
