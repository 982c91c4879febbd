// The client address behind trusted proxies (issue 24): right-most X-Forwarded-For entry that is not a trusted
// proxy, the socket address otherwise, and the settings of both services that name the proxies.
import { createClientAddressResolver, loadAuthConfig, loadDnsConfig, parseTrustedProxies, addressListTest } from '../src';
import { cleanupTempDirs, configError, MINIMAL_ENV, tempDir } from './helpers';

afterEach(cleanupTempDirs);

describe('parseTrustedProxies', () => {
  it('takes addresses and CIDR blocks of both families', () => {
    expect(parseTrustedProxies(' 10.0.0.0/8, 192.0.2.7 ,fd00::/8,::1 ')).toEqual(['10.0.0.0/8', '192.0.2.7', 'fd00::/8', '::1']);
    expect(parseTrustedProxies('')).toEqual([]);
  });

  it.each(['10.0.0.0/33', 'proxy.example', '10.0.0.1/8/2', '10.0.0.0/x', 'fd00::/129', '300.1.1.1'])('refuses %s', (entry) => {
    expect(parseTrustedProxies(`10.0.0.1,${entry}`)).toBeUndefined();
  });
});

describe('createClientAddressResolver', () => {
  const resolver = createClientAddressResolver({ trustedProxies: ['10.0.0.0/8', 'fd00::/8'] });

  it('without a trusted proxy in front, the socket address is the client, whatever the header says', () => {
    expect(resolver.resolve('192.0.2.50', '198.51.100.1')).toBe('192.0.2.50');
    expect(resolver.resolve('::ffff:192.0.2.50', undefined)).toBe('192.0.2.50');
  });

  it('behind trusted proxies, the right-most entry that is not one of them', () => {
    expect(resolver.resolve('10.0.0.2', '198.51.100.1')).toBe('198.51.100.1');
    // the client wrote the first two entries itself; the proxies appended the rest
    expect(resolver.resolve('10.0.0.2', '1.2.3.4, 5.6.7.8, 198.51.100.1, 10.0.0.9')).toBe('198.51.100.1');
    expect(resolver.resolve('::ffff:10.0.0.2', '[2001:db8::1]:443, fd00::3')).toBe('2001:db8::1');
    expect(resolver.resolve('10.0.0.2', '198.51.100.1:51234')).toBe('198.51.100.1');
  });

  it('a malformed entry appended by a trusted proxy leaves the last good address', () => {
    expect(resolver.resolve('10.0.0.2', 'unknown, 10.0.0.3')).toBe('10.0.0.3');
    expect(resolver.resolve('10.0.0.2', 'garbage')).toBe('10.0.0.2');
  });

  it('warns about forwarded headers from an untrusted address at most once per period', () => {
    let now = 0;
    const warned: string[] = [];
    const r = createClientAddressResolver({ trustedProxies: [], onUntrustedForwarding: (a) => warned.push(a), now: () => now });
    r.resolve('172.18.0.5', '198.51.100.1');
    r.resolve('172.18.0.5', '198.51.100.2');
    r.resolve('172.18.0.6', undefined);
    expect(warned).toEqual(['172.18.0.5']);
    now += 600_001;
    r.resolve('172.18.0.5', '198.51.100.1');
    expect(warned).toHaveLength(2);
  });
});

describe('settings', () => {
  it('auth: AUTH_TRUSTED_PROXIES or GOTRUE_TRUSTED_PROXIES, every bad entry named', () => {
    expect(loadAuthConfig({ cwd: tempDir(), env: { ...MINIMAL_ENV } }).api.trustedProxies).toEqual([]);
    expect(loadAuthConfig({ cwd: tempDir(), env: { ...MINIMAL_ENV, GOTRUE_TRUSTED_PROXIES: '10.0.0.0/8' } }).api.trustedProxies).toEqual(['10.0.0.0/8']);
    expect(configError(() => loadAuthConfig({ cwd: tempDir(), env: { ...MINIMAL_ENV, AUTH_TRUSTED_PROXIES: 'nginx' } })).message)
      .toContain('AUTH_TRUSTED_PROXIES');
  });

  it('auth: telemetry switches are read without the prefix too', () => {
    const c = loadAuthConfig({ cwd: tempDir(), env: { ...MINIMAL_ENV, METRICS_ENABLED: 'true', METRICS_EXPORTER: 'prometheus', TRACING_ENABLED: 'true', DEBUG: 'true' } });
    expect(c.metrics).toMatchObject({ enabled: true, exporter: 'prometheus' });
    expect(c.tracing).toMatchObject({ enabled: true, debug: true });
  });

  it('dns: http.yml trusted_proxies as a list, TRUSTED_PROXIES in the environment wins', () => {
    const dir = tempDir({ 'config/http.yml': 'default:\n  trusted_proxies: [10.0.0.0/8, 192.0.2.7]\n' });
    expect(loadDnsConfig({ dir, env: {} }).http.trustedProxies).toEqual(['10.0.0.0/8', '192.0.2.7']);
    expect(loadDnsConfig({ dir, env: { TRUSTED_PROXIES: '172.16.0.0/12' } }).http.trustedProxies).toEqual(['172.16.0.0/12']);
    expect(configError(() => loadDnsConfig({ dir, env: { TRUSTED_PROXIES: '10.0.0.0/40' } })).message).toContain('TRUSTED_PROXIES');
    const bad = tempDir({ 'config/http.yml': 'default:\n  trusted_proxies: nginx\n' });
    expect(configError(() => loadDnsConfig({ dir: bad, env: {} })).message).toContain('trusted_proxies');
  });

  it('dns: database.yml prepared_statements, DB_PREPARED_STATEMENTS wins', () => {
    const dir = tempDir({ 'config/database.yml': 'default:\n  prepared_statements: false\n' });
    expect(loadDnsConfig({ dir, env: {} }).database.preparedStatements).toBe(false);
    expect(loadDnsConfig({ dir, env: { DB_PREPARED_STATEMENTS: 'true' } }).database.preparedStatements).toBe(true);
  });
});

describe('addressListTest (Express trust proxy, transfer sources)', () => {
  test('trusts the listed proxies in every form Node reports them, and no one when the list is empty', () => {
    const trusts = addressListTest(['10.0.0.0/8', '::1']);
    expect(trusts('10.1.2.3')).toBe(true);
    expect(trusts('::ffff:10.1.2.3')).toBe(true);
    expect(trusts('::1')).toBe(true);
    expect(trusts('192.0.2.1')).toBe(false);
    expect(trusts('not an address')).toBe(false);
    expect(addressListTest([])('127.0.0.1')).toBe(false);
  });
});
