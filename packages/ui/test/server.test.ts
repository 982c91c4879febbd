import type { AddressInfo } from 'node:net';
import path from 'node:path';
import express from 'express';
import { contentSecurityPolicy, refuseCrossSiteWrites, staticPages } from '../src/server';

let url: string;
let close: () => Promise<void>;

beforeAll(async () => {
  const app = express();
  app.use(refuseCrossSiteWrites({ allowedOrigins: ['https://console.example'], refuse: (_req, res) => void res.status(403).json({ error: 'cross_site' }) }));
  app.post('/write', (_req, res) => void res.json({ ok: true }));
  app.use('/console', staticPages({ dir: path.join(__dirname, 'fixture-pages') }));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => new Promise((resolve) => server.close(() => resolve()));
});
afterAll(() => close());

describe('refuseCrossSiteWrites', () => {
  const post = (headers: Record<string, string>) => fetch(`${url}/write`, { method: 'POST', headers });

  it('lets a same-origin page and a client without browser headers write', async () => {
    expect((await post({ 'sec-fetch-site': 'same-origin', origin: url })).status).toBe(200);
    expect((await post({})).status).toBe(200);
    expect((await post({ origin: url })).status).toBe(200);
    expect((await post({ 'sec-fetch-site': 'cross-site', origin: 'https://console.example' })).status).toBe(200);
  });

  it('refuses a write a browser reports as sent from another site or origin', async () => {
    expect((await post({ 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' })).status).toBe(403);
    expect((await post({ 'sec-fetch-site': 'same-site', origin: 'https://sub.example' })).status).toBe(403);
    expect((await post({ origin: 'https://evil.example' })).status).toBe(403);
    expect((await post({ origin: 'null' })).status).toBe(403);
  });

  it('never blocks a read', async () => {
    const res = await fetch(`${url}/console/`, { headers: { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example', accept: 'text/html' } });
    expect(res.status).toBe(200);
  });
});

describe('staticPages', () => {
  it('answers the index with the strict CSP and no caching', async () => {
    const res = await fetch(`${url}/console/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(contentSecurityPolicy());
    expect(res.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });

  it('caches hashed assets for a year and 404s a missing one', async () => {
    const res = await fetch(`${url}/console/assets/app-abc123.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${url}/console/assets/missing.js`)).status).toBe(404);
  });

  it('answers client-side routes with the index page, JSON requests not', async () => {
    const page = await fetch(`${url}/console/zones/12`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    expect((await fetch(`${url}/console/zones/12`, { headers: { accept: 'application/json' } })).status).toBe(404);
  });

  it('merges extra CSP sources into their directive', () => {
    expect(contentSecurityPolicy({ 'img-src': 'https://logo.example' })).toContain("img-src 'self' data: https://logo.example");
  });
});
