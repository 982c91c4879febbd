import { RedirectPolicy, compileAllowListGlob } from '../../src/services/platform/redirects';

const policy = new RedirectPolicy({
  siteUrl: 'https://app.example.com',
  uriAllowList: [
    'https://*.good.com/**',
    'https://exact.org/callback',
    'https://paths.org/*/done',
    'myapp://callback',
    'http://localhost:3000/**',
    'https://{one,two}.alt.net/x?',
  ],
});

describe('redirect allow-list', () => {
  const cases: Array<[string, boolean, string]> = [
    ['https://app.example.com/welcome', true, 'same host as SITE_URL'],
    ['https://app.example.com:443/x', true, 'explicit default port equals SITE_URL'],
    ['https://app.example.com:8443/x', false, 'port differs from SITE_URL'],
    ['http://app.example.com/x', false, 'scheme mismatch with SITE_URL'],
    ['https://a.good.com/path/deep', true, '* matches one label, ** crosses path segments'],
    ['https://a.b.good.com/x', false, '* does not cross a dot'],
    ['https://good.com/x', false, '*. requires a label'],
    ['https://evil.com?x=good.com', false, 'allowed host only in the query'],
    ['https://evil.com/https://a.good.com/', false, 'allowed URL inside the path'],
    ['https://a.good.com@evil.com/', false, 'userinfo trick'],
    ['https://user:pw@a.good.com/', false, 'credentials are never allowed'],
    ['https://exact.org/callback', true, 'exact entry'],
    ['https://exact.org/callback/more', false, 'exact entry does not extend'],
    ['https://exact.org/callback#frag', true, 'fragment ignored for matching'],
    ['https://paths.org/abc/done', true, '* one path segment'],
    ['https://paths.org/a/b/done', false, '* does not cross a slash'],
    ['myapp://callback', true, 'custom scheme via list'],
    ['otherapp://callback', false, 'other custom scheme'],
    ['http://localhost:3000/cb', true, 'loopback dev entry'],
    ['http://localhost:4000/cb', false, 'loopback entry port differs'],
    ['https://one.alt.net/x1', true, '{a,b} alternatives and ?'],
    ['https://three.alt.net/x1', false, 'alternative not listed'],
    ['https://2130706433/', false, 'decimal integer host'],
    ['not a url', false, 'unparsable'],
    ['https://a.good.com\\@evil.com/', false, 'backslash parser differential'],
    ['', false, 'empty'],
  ];
  it.each(cases)('%s → %s (%s)', (url, expected) => {
    expect(policy.isAllowed(url)).toBe(expected);
  });

  describe('host theft through the allow-list (issue 26): parsed as browsers parse, never matched as a raw string', () => {
    const trusted = new RedirectPolicy({ siteUrl: 'https://app.example.com', uriAllowList: ['https://*.trusted.example/**', 'https://app2.example.com/cb'] });
    it.each([
      'https://evil%2eexample?.trusted.example/',
      'https://evil%2Eexample?.trusted.example/',
      'https://evil。example?.trusted.example/',
      'https://evil．example?.trusted.example/',
      'https://evil?.trusted.example/',
      'https://evil#.trusted.example/',
      'https://evil%252eexample?.trusted.example/',
      'https://evil%252Eexample%3F.trusted.example/',
      'https://trusted.example@evil/',
      'https://a.trusted.example@evil.example/',
      'https://a.trusted.example\\@evil.example/',
      'https://evil.example\\.trusted.example/',
      'https://evil.example/.trusted.example/',
      'https://evil.example:443.trusted.example/',
      'HTTPS://EVIL?.TRUSTED.EXAMPLE/',
      'https://app2.example.com/cb?.trusted.example',
      'https://app.example.com%2eevil.example/',
      'https://xn--evil-9m3b.trusted.example%00/',
    ])('%s is refused', (url) => {
      expect(trusted.isAllowed(url)).toBe(false);
      expect(trusted.validate(url)).toBe('https://app.example.com');
    });
    it.each([
      'https://a.trusted.example/',
      'https://A.Trusted.Example/deep/path?x=1#y',
      'HTTPS://a.trusted.example/x',
      'https://app2.example.com/cb',
    ])('%s is allowed', (url) => {
      expect(trusted.isAllowed(url)).toBe(true);
    });
  });

  it('loopback SITE_URL ignores the port', () => {
    const local = new RedirectPolicy({ siteUrl: 'http://localhost:3000', uriAllowList: [] });
    expect(local.isAllowed('http://localhost:5173/cb')).toBe(true);
    expect(local.isAllowed('https://localhost:5173/cb')).toBe(false);
  });

  it('resolves query, then body, then header, then Referer, else SITE_URL', () => {
    expect(policy.resolve({ query: 'https://a.good.com/q', body: 'https://a.good.com/b' })).toBe('https://a.good.com/q');
    expect(policy.resolve({ body: 'https://a.good.com/b', header: 'https://a.good.com/h' })).toBe('https://a.good.com/b');
    expect(policy.resolve({ header: 'https://a.good.com/h' })).toBe('https://a.good.com/h');
    expect(policy.resolve({ referer: 'https://a.good.com/r' })).toBe('https://a.good.com/r');
    expect(policy.resolve({ query: 'https://evil.com/' })).toBe('https://app.example.com');
    expect(policy.resolve({ query: 'https://evil.com/', referer: 'https://evil.com/' })).toBe('https://app.example.com');
    expect(policy.resolve({})).toBe('https://app.example.com');
  });

  it('compiles globs with escaped regexp characters', () => {
    expect(compileAllowListGlob('https://x.com/a+b').test('https://x.com/a+b')).toBe(true);
    expect(compileAllowListGlob('https://x.com/a+b').test('https://x.com/aab')).toBe(false);
  });
});
