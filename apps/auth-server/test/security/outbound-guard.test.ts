// The outbound guard's address rules (services/platform/outbound.ts) and its settings: which addresses an
// admin-typed URL may reach, IPv4 and IPv6 alike (an IPv6 form of a private IPv4 address is that address), and
// OUTBOUND_ALLOWED_NETWORKS, whose invalid entries stop the start.
import { ConfigError, loadAuthConfig } from '@keyzone/config';
import { AddressPolicy, checkOutboundUrl, OutboundRefused } from '../../src/services/platform/outbound';
import { SecretBox } from '../../src/services/platform/secret-box';

const none = new AddressPolicy([]);

describe('AddressPolicy', () => {
  it.each([
    ['127.0.0.1', 'loopback'], ['127.255.0.9', 'loopback'], ['::1', 'loopback'],
    ['10.1.2.3', 'private network'], ['172.16.0.1', 'private network'], ['172.31.255.255', 'private network'], ['192.168.1.1', 'private network'],
    ['100.64.0.1', 'private network'], ['fd00::1', 'private network'], ['fc00::5', 'private network'],
    ['169.254.169.254', 'link-local'], ['fe80::1', 'link-local'],
    ['224.0.0.1', 'multicast'], ['239.1.1.1', 'multicast'], ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'], ['::', 'unspecified'],
    ['::ffff:127.0.0.1', 'loopback'], ['::ffff:7f00:1', 'loopback'], ['::ffff:10.0.0.1', 'private network'], ['::ffff:a9fe:a9fe', 'link-local'],
    ['64:ff9b::a00:1', 'private network'], ['::10.0.0.1', 'private network'],
    ['255.255.255.255', 'broadcast'], ['240.0.0.1', 'reserved'],
    // Other IPv6 forms that reach an IPv4 address: local-use NAT64 (RFC 8215), SIIT's IPv4-translated form
    // (RFC 2765), 6to4 (RFC 3056); and the rest of the deprecated ::/96.
    ['64:ff9b:1::a9fe:a9fe', 'reserved'], ['::ffff:0:7f00:1', 'reserved'], ['2002:a9fe:a9fe::1', 'link-local'],
    ['2002:7f00:1::', 'loopback'], ['::2', 'reserved'],
  ])('refuses %s (%s)', (address, kind) => {
    expect(none.refusal(address)).toContain(kind);
  });

  it.each(['8.8.8.8', '93.184.216.34', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows the public address %s', (address) => {
    expect(none.refusal(address)).toBeUndefined();
  });

  it('OUTBOUND_ALLOWED_NETWORKS opens exactly its networks, also in their IPv4-mapped IPv6 form', () => {
    const policy = new AddressPolicy(['10.20.0.0/16', '127.0.0.1/32', 'fd12::/16']);
    expect(policy.refusal('10.20.3.4')).toBeUndefined();
    expect(policy.refusal('::ffff:10.20.3.4')).toBeUndefined();
    expect(policy.refusal('10.21.0.1')).toContain('private network');
    expect(policy.refusal('127.0.0.1')).toBeUndefined();
    expect(policy.refusal('127.0.0.2')).toContain('loopback');
    expect(policy.refusal('fd12::9')).toBeUndefined();
    expect(policy.refusal('fd13::9')).toContain('private network');
  });
});

describe('checkOutboundUrl', () => {
  it.each([
    ['http://example.com/', /HTTPS/], ['ftp://example.com/', /HTTPS/], ['not a url', /Invalid URL/], ['https://user:pw@example.com/', /credentials/],
  ])('refuses %s', (url, message) => {
    expect(() => checkOutboundUrl(url)).toThrow(OutboundRefused);
    expect(() => checkOutboundUrl(url)).toThrow(message);
  });
});

describe('settings', () => {
  const base = { AUTH_SITE_URL: 'http://localhost:3000', AUTH_API_EXTERNAL_URL: 'http://localhost:9999', AUTH_DATABASE_URL: 'postgres://x@localhost/x', AUTH_JWT_SECRET: 'a'.repeat(40) };

  it('an invalid CIDR in OUTBOUND_ALLOWED_NETWORKS stops the start with the usual message', () => {
    expect(() => loadAuthConfig({ env: { ...base, AUTH_OUTBOUND_ALLOWED_NETWORKS: '10.0.0.0/8,10.0.0.0/33' }, cwd: '/nonexistent' })).toThrow(ConfigError);
    expect(() => loadAuthConfig({ env: { ...base, AUTH_OUTBOUND_ALLOWED_NETWORKS: 'intranet' }, cwd: '/nonexistent' }))
      .toThrow(/OUTBOUND_ALLOWED_NETWORKS: expected comma-separated CIDR blocks or addresses/);
    const config = loadAuthConfig({ env: { ...base, AUTH_OUTBOUND_ALLOWED_NETWORKS: '10.0.0.0/8, fd00::/8' }, cwd: '/nonexistent' });
    expect(config.outbound.allowedNetworks).toEqual(['10.0.0.0/8', 'fd00::/8']);
  });

  it('CUSTOM_OAUTH_ENABLED defaults on; the MAX_PROVIDERS limit; a short encryption key stops the start', () => {
    const config = loadAuthConfig({ env: { ...base, AUTH_CUSTOM_OAUTH_MAX_PROVIDERS: '7' }, cwd: '/nonexistent' });
    expect(config.customOAuth).toMatchObject({ enabled: true, maxProviders: 7 });
    expect(loadAuthConfig({ env: { ...base, AUTH_CUSTOM_OAUTH_ENABLED: 'false' }, cwd: '/nonexistent' }).customOAuth.enabled).toBe(false);
    expect(() => loadAuthConfig({ env: { ...base, AUTH_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY: 'short' }, cwd: '/nonexistent' })).toThrow(/at least 32 characters/);
  });
});

describe('SecretBox', () => {
  it('opens what it sealed for the same row only, and not under another key', () => {
    const box = new SecretBox('k'.repeat(40), 'custom-oauth-client-secret');
    const sealed = box.seal('the secret', 'row-1');
    expect(sealed).not.toContain('the secret');
    expect(box.open(sealed, 'row-1')).toBe('the secret');
    expect(() => box.open(sealed, 'row-2')).toThrow();
    expect(() => new SecretBox('m'.repeat(40), 'custom-oauth-client-secret').open(sealed, 'row-1')).toThrow(/another key/);
    const tampered = `${sealed.slice(0, -2)}${sealed.endsWith('A') ? 'B' : 'A'}A`;
    expect(() => box.open(tampered, 'row-1')).toThrow();
  });
});
