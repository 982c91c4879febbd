// The landing page of mailed links and sign-in redirects while SITE_URL points at the auth server (the development
// default): it shows what arrived (a session in the fragment, a PKCE code or an error) and drops it from the
// address bar. Reading happens in the browser only; a session in the fragment is shown, never stored.
import { useEffect, useState } from 'react';
import { Button, Card } from '@keyzone/ui/browser';
import { accessToken, sessionUser, signOut } from '../../shared/session';

type Rows = Array<[string, string | undefined]>;

const NEXT_STEPS: Record<string, string> = {
  otp_expired: 'The link was used already or has expired. Ask for a new one: POST /resend {"type": "signup", "email": ...} ' +
    'for a sign-up, POST /magiclink or /otp {"email": ...} to sign in, POST /recover {"email": ...} to reset a password.',
  access_denied: 'Sign-in was cancelled or refused. Start it again from your app.',
  flow_state_expired: 'The sign-in took too long. Start it again from your app.',
};

function claims(jwt: string): Record<string, string | undefined> {
  try {
    const part = jwt.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/');
    return JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(part), (c) => c.charCodeAt(0)))) as Record<string, string>;
  } catch {
    return {};
  }
}

function arrived(): { title: string; rows: Rows } | undefined {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const query = new URLSearchParams(location.search);
  const param = (name: string) => fragment.get(name) ?? query.get(name) ?? undefined;
  if (param('error') || param('error_description')) {
    const code = param('error_code');
    return {
      title: 'That did not work',
      rows: [['error', param('error')], ['code', code], ['description', param('error_description')],
        ['what now', (code && NEXT_STEPS[code]) ?? NEXT_STEPS[param('error') ?? ''] ?? '']],
    };
  }
  const token = fragment.get('access_token');
  if (token) {
    const c = claims(token);
    const expires = Number(fragment.get('expires_at'));
    return {
      title: 'Signed in',
      rows: [['email', c.email], ['phone', c.phone], ['user id', c.sub], ['link type', fragment.get('type') ?? undefined],
        ['session expires', expires ? new Date(expires * 1000).toLocaleString() : undefined]],
    };
  }
  const code = query.get('code');
  if (code) return { title: 'Authorization code received', rows: [['code', code], ['next', 'POST /token?grant_type=pkce with {auth_code, code_verifier}']] };
  return undefined;
}

export function LandingPage() {
  const [result] = useState(arrived);
  const [user, setUser] = useState<string>();
  useEffect(() => {
    if (location.hash || location.search) history.replaceState(null, '', location.pathname);
    void accessToken().then((token) => token && setUser(sessionUser()?.email ?? sessionUser()?.id), () => undefined);
  }, []);
  return (
    <Card title="Keyzone auth server" headingLevel={1}>
      <section id="result" aria-live="polite" className="kz-stack">
        {result ? (
          <>
            <h2>{result.title}</h2>
            <dl className="hz-result">
              {result.rows.filter((row) => row[1]).map(([term, value]) => (
                <div key={term} className="kz-contents"><dt>{term}</dt><dd>{value}</dd></div>
              ))}
            </dl>
          </>
        ) : (
          <p>This is the auth server's own page. Links in its mails and sign-in redirects come here while <code>SITE_URL</code> points
            here (the development default); set <code>AUTH_SITE_URL</code> to your app.</p>
        )}
      </section>
      {user ? (
        <div className="kz-row">
          <p>Signed in as {user}.</p>
          <Button variant="secondary" onClick={() => void signOut().then(() => setUser(undefined))}>Sign out</Button>
        </div>
      ) : (
        <p><a href="sign-in">Sign in</a></p>
      )}
      <p>API: <code>GET /settings</code>, <code>POST /signup</code>, <code>POST /token</code>, keys at <code>/.well-known/jwks.json</code>.</p>
    </Card>
  );
}
