import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '@keyzone/db/testing';
import { PASSWORD, startTestServer } from './helpers/server';

// NODE_ENV picks the YAML section, deep-merged over `default`, and the app behaves accordingly.
describe('YAML environments through the app', () => {
  let database: TestDatabase;
  let dir: string;

  beforeAll(async () => {
    database = await createTestDatabase({ kind: 'pglite', migrate: 'dns' });
    dir = mkdtempSync(path.join(os.tmpdir(), 'dns-config-'));
    writeFileSync(
      path.join(dir, 'http.yml'),
      ['default:', '  default_group: DefaultSection', 'test:', '  default_group: TestSection', 'development:', '  default_group: DevSection', ''].join('\n'),
    );
    writeFileSync(
      path.join(dir, 'session.yml'),
      ['default:', '  cookie_name: sid-default', '  ttl_seconds: 600', 'test:', '  cookie_name: sid-testsection', 'production:', '  cookie_name: sid-prod', ''].join('\n'),
    );
  });
  afterAll(async () => {
    await database?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  test('test section: its cookie name and default group, the default ttl merged underneath', async () => {
    const t = await startTestServer({ database, nodeEnv: 'test', env: { DNS_CONFIG_DIR: dir } });
    try {
      await t.seedUser({ group: 'TestSection', username: 'yaml-user' });
      const res = await t.client().post('/session', { username: 'yaml-user', password: PASSWORD });
      expect(res.status).toBe(200);
      expect(res.body.group.name).toBe('TestSection');
      expect(res.setCookies[0]).toMatch(/^sid-testsection=[^;]+; Max-Age=600; /);
      expect(res.setCookies[0]).not.toContain('Secure');
    } finally {
      await t.close();
    }
  });

  test('development section: its default group, the default cookie name', async () => {
    const t = await startTestServer({ database, nodeEnv: 'development', env: { DNS_CONFIG_DIR: dir } });
    try {
      await t.seedUser({ group: 'DevSection', username: 'dev-user' });
      const res = await t.client().post('/session', { username: 'dev-user', password: PASSWORD });
      expect(res.status).toBe(200);
      expect(res.body.group.name).toBe('DevSection');
      expect(res.setCookies[0]).toMatch(/^sid-default=/);
    } finally {
      await t.close();
    }
  });

  test('production (the shipped config): Secure cookie, and 400s that do not name fields', async () => {
    const t = await startTestServer({ database, nodeEnv: 'production' });
    try {
      expect(t.config.env).toBe('production');
      await t.seedUser({ group: 'ProdGroup', username: 'prod-admin', isAdmin: true });
      const client = t.client();
      const res = await client.post('/session', { username: 'prod-admin@ProdGroup', password: PASSWORD });
      expect(res.status).toBe(200);
      expect(res.setCookies[0]).toMatch(/^sid-dnsapi=[^;]+; Max-Age=3600; Expires=[^;]+; HttpOnly; SameSite=Strict; Path=\/; Secure$/);
      const bad = await client.post('/user', { gid: 1, username: 'x' });
      expect(bad.status).toBe(400);
      expect(bad.text).toBe('{"statusCode":400,"error":"Bad Request","message":"Invalid request payload input"}');
      const logout = await client.delete('/session');
      expect(logout.setCookies[0]).toMatch(/; Secure$/);
    } finally {
      await t.close();
    }
  });
});
