// GET /: the auth server's own page, where development's default SITE_URL points. Confirmation, magic-link and
// recovery links and OAuth redirects land on SITE_URL when no app is configured; this page shows what arrived
// (the session in the fragment, a PKCE code or an error) and then drops it from the address bar. It is static:
// everything it shows is read in the browser, and the CSP allows only its own inline script and style.
import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';

// overflow-wrap:anywhere breaks only what cannot fit otherwise (a token, a user id), never ordinary words (issue 39).
const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1d1d1f}
h1{font-size:1.4rem}dl{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem}dt{font-weight:600}
dd{margin:0;overflow-wrap:anywhere}code{background:#f2f2f2;padding:0 .2rem}`;

const SCRIPT = `(function () {
  var fragment = new URLSearchParams(location.hash.slice(1));
  var query = new URLSearchParams(location.search);
  var param = function (name) { return fragment.get(name) || query.get(name); };
  var show = function (title, rows) {
    var section = document.getElementById('result');
    section.textContent = '';
    var h = document.createElement('h2');
    h.textContent = title;
    var list = document.createElement('dl');
    rows.forEach(function (row) {
      if (!row[1]) return;
      var dt = document.createElement('dt');
      var dd = document.createElement('dd');
      dt.textContent = row[0];
      dd.textContent = row[1];
      list.append(dt, dd);
    });
    section.append(h, list);
  };
  var claims = function (jwt) {
    try {
      var part = jwt.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
      var bytes = Uint8Array.from(atob(part), function (c) { return c.charCodeAt(0); });
      return JSON.parse(new TextDecoder().decode(bytes));
    } catch (e) { return {}; }
  };
  var nextSteps = {
    otp_expired: 'The link was used already or has expired. Ask for a new one: POST /resend {"type": "signup", "email": ...} ' +
      'for a sign-up, POST /magiclink or /otp {"email": ...} to sign in, POST /recover {"email": ...} to reset a password.',
    access_denied: 'Sign-in was cancelled or refused. Start it again from your app.',
    flow_state_expired: 'The sign-in took too long. Start it again from your app.'
  };
  if (param('error') || param('error_description')) {
    show('That did not work', [['error', param('error')], ['code', param('error_code')], ['description', param('error_description')],
      ['what now', nextSteps[param('error_code')] || nextSteps[param('error')] || '']]);
  } else if (fragment.get('access_token')) {
    var c = claims(fragment.get('access_token'));
    var expires = Number(fragment.get('expires_at'));
    show('Signed in', [['email', c.email], ['phone', c.phone], ['user id', c.sub], ['link type', fragment.get('type')],
      ['session expires', expires ? new Date(expires * 1000).toLocaleString() : '']]);
  } else if (query.get('code')) {
    show('Authorization code received', [['code', query.get('code')],
      ['next', 'POST /token?grant_type=pkce with {auth_code, code_verifier}']]);
  }
  if (location.hash || location.search) history.replaceState(null, '', location.pathname);
})();`;

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Keyzone auth server</title><style>${STYLE}</style></head>
<body><h1>Keyzone auth server</h1>
<section id="result"><p>This is the auth server's own page. Links in its mails and sign-in redirects come here
while <code>SITE_URL</code> points here (the development default); set <code>AUTH_SITE_URL</code> to your app.</p></section>
<p>API: <code>GET /settings</code>, <code>POST /signup</code>, <code>POST /token</code>, keys at
<code>/.well-known/jwks.json</code>.</p>
<script>${SCRIPT}</script></body></html>
`;

const sha256 = (text: string): string => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy':
    `default-src 'none'; script-src ${sha256(SCRIPT)}; style-src ${sha256(STYLE)}; ` +
    `base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  // The fragment can hold a session: nothing on the page may leak the URL onwards.
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

export function sitePage(): RequestHandler {
  return (_req, res) => {
    res.set(HEADERS).send(PAGE);
  };
}
