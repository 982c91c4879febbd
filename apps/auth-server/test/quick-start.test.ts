// The quick start as the README tells it: with no settings the server signs with a generated RS256 key, so
// another app's `requireUser({ jwksUrl })` accepts its tokens, and links land on the server's own page.
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express from 'express';
import { requireUser } from '@keyzone/tokens';
import { readConfig } from '../src/config';
import { startTestServer, type TestServer } from './helpers/server';
import { claimsOf, signUp } from './helpers/users';

let cwd: string;
let server: TestServer;

beforeAll(async () => {
  cwd = mkdtempSync(path.join(tmpdir(), 'kz-auth-quick-start-'));
  const development = readConfig({}, cwd);
  server = await startTestServer({
    env: { JWT_SECRET: undefined, JWT_KEYS: JSON.stringify(development.jwt.keys), MAILER_AUTOCONFIRM: 'true' },
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
  rmSync(cwd, { recursive: true, force: true });
});

it("another app's requireUser({ jwksUrl }) accepts the development server's tokens", async () => {
  const session = await signUp(server.url);
  const header = JSON.parse(Buffer.from(session.access_token.split('.')[0] ?? '', 'base64url').toString()) as Record<string, unknown>;
  expect(header).toMatchObject({ alg: 'RS256', typ: 'JWT' });

  const other = express();
  other.use('/api', requireUser({ jwksUrl: `${server.url}/auth/v1/.well-known/jwks.json` }));
  other.get('/api/me', (req, res) => res.json({ sub: req.auth?.claims.sub }));
  const listening: Server = await new Promise((resolve) => {
    const s = other.listen(0, '127.0.0.1', () => resolve(s));
  });
  try {
    const base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
    const ok = await fetch(`${base}/api/me`, { headers: { authorization: `Bearer ${session.access_token}` } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ sub: claimsOf(session.access_token).sub });
    const forged = await fetch(`${base}/api/me`, { headers: { authorization: `Bearer ${session.access_token.slice(0, -4)}AAAA` } });
    expect(forged.status).toBe(401);
  } finally {
    listening.closeAllConnections();
    await new Promise((resolve) => listening.close(resolve));
  }
});

it('GET / leads to the hosted landing page: static, the strict CSP, no inline script or style', async () => {
  for (const at of ['/', '/auth/v1/', '/auth/v1']) {
    const response = await fetch(`${server.url}${at}?error=x`);
    expect(response.status).toBe(200);
    expect(response.url).toBe(`${server.url}${at.startsWith('/auth/v1') ? '/auth/v1' : ''}/hosted/?error=x`);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await response.text();
    expect(html).toContain('<title>Keyzone</title>');
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>|<style|\sstyle=/);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
  }
});
