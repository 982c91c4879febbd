// Sign in: password, an e-mailed code (magic link), a passkey, the enabled OAuth providers and SSO by domain; then
// the TOTP step-up when the account has a verified factor. The session goes to the server's cookie and the browser
// continues (continuation.ts). A provider or SSO sign-in comes back here with the session in the fragment.
import { useEffect, useState, type FormEvent } from 'react';
import { Alert, Button, Card, ErrorSummary, TextField, requestJson } from '@keyzone/ui/browser';
import { apiUrl } from '../../shared/api-base';
import { adoptSession, type TokenAnswer } from '../../shared/session';
import { continuationQuery, continueAfterSignIn, requestedRedirect } from '../continuation';

interface Settings {
  external: Record<string, boolean>;
  disable_signup: boolean;
  saml_enabled?: boolean;
  passkeys_enabled?: boolean;
}

type Method = 'password' | 'code';
const NOT_PROVIDERS = new Set(['email', 'phone', 'anonymous_users']);
const label = (name: string) => name.replace(/^custom:/, '').replace(/(^|[_-])(\w)/g, (_m, sep: string, c: string) => (sep ? ' ' : '') + c.toUpperCase());

/** The current page's address without its fragment: where a provider or SSO sends the browser back to. */
const hereWithoutFragment = () => `${location.origin}${location.pathname}${location.search}`;

/** The assurance level of an access token (aal2 after a passkey, which is a second factor by itself). */
function assuranceOf(accessToken: string): string | undefined {
  try {
    const part = accessToken.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/');
    return (JSON.parse(atob(part)) as { aal?: string }).aal;
  } catch {
    return undefined;
  }
}

async function finish(tokens: TokenAnswer, setStep: (step: { factorId: string; tokens: TokenAnswer }) => void) {
  const factor = tokens.user.factors?.find((f) => f.factor_type === 'totp' && f.status === 'verified');
  if (factor && assuranceOf(tokens.access_token) !== 'aal2') {
    setStep({ factorId: factor.id, tokens });
    return;
  }
  const session = await adoptSession(tokens, requestedRedirect());
  continueAfterSignIn(session.continue_to);
}

export function SignInPage() {
  const [settings, setSettings] = useState<Settings>();
  const [method, setMethod] = useState<Method>('password');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [codeSent, setCodeSent] = useState(false);
  const [domain, setDomain] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error>();
  const [stepUp, setStepUp] = useState<{ factorId: string; tokens: TokenAnswer }>();

  const run = (work: () => Promise<void>) => async (event?: FormEvent) => {
    event?.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await work();
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    void requestJson<Settings>(apiUrl('/settings')).then(setSettings, setError);
    // Back from a provider or SSO: the session is in the fragment. Take it and drop it from the address bar.
    const fragment = new URLSearchParams(location.hash.slice(1));
    const refresh = fragment.get('refresh_token');
    const access = fragment.get('access_token');
    if (location.hash) history.replaceState(null, '', location.pathname + location.search);
    if (refresh && access) {
      void run(async () => {
        const user = await requestJson<TokenAnswer['user']>(apiUrl('/user'), { headers: { authorization: `Bearer ${access}` } });
        await finish({ access_token: access, refresh_token: refresh, expires_at: Number(fragment.get('expires_at')), user }, setStepUp);
      })();
    } else if (fragment.get('error_description')) {
      setError(new Error(fragment.get('error_description') ?? 'Sign-in failed'));
    }
  }, []);

  const signInWithPassword = run(async () => {
    const tokens = await requestJson<TokenAnswer>(apiUrl('/token?grant_type=password'), { body: { email, password } });
    await finish(tokens, setStepUp);
  });
  const sendCode = run(async () => {
    await requestJson(apiUrl('/otp'), { body: { email, create_user: false } });
    setCodeSent(true);
  });
  const signInWithCode = run(async () => {
    const tokens = await requestJson<TokenAnswer>(apiUrl('/verify'), { body: { type: 'email', email, token: code.trim() } });
    await finish(tokens, setStepUp);
  });
  const signInWithPasskey = run(async () => {
    const started = await requestJson<{ challenge_id: string; options: unknown }>(apiUrl('/passkeys/authentication/options'), { body: {} });
    const parse = (PublicKeyCredential as unknown as { parseRequestOptionsFromJSON(o: unknown): PublicKeyCredentialRequestOptions }).parseRequestOptionsFromJSON;
    const credential = (await navigator.credentials.get({ publicKey: parse(started.options) })) as (PublicKeyCredential & { toJSON(): unknown }) | null;
    if (!credential) throw new Error('No passkey was chosen.');
    const tokens = await requestJson<TokenAnswer>(apiUrl('/passkeys/authentication/verify'), {
      body: { challenge_id: started.challenge_id, credential: credential.toJSON() },
    });
    await finish(tokens, setStepUp);
  });
  const signInWithSso = run(async () => {
    const answer = await requestJson<{ url: string }>(apiUrl('/sso'), { body: { domain: domain.trim(), redirect_to: hereWithoutFragment(), skip_http_redirect: true } });
    location.assign(answer.url);
  });
  const verifyTotp = run(async () => {
    if (!stepUp) return;
    const headers = { authorization: `Bearer ${stepUp.tokens.access_token}` };
    const challenge = await requestJson<{ id: string }>(apiUrl(`/factors/${stepUp.factorId}/challenge`), { body: {}, headers });
    const tokens = await requestJson<TokenAnswer>(apiUrl(`/factors/${stepUp.factorId}/verify`), { body: { challenge_id: challenge.id, code: code.trim() }, headers });
    const session = await adoptSession(tokens, requestedRedirect());
    continueAfterSignIn(session.continue_to);
  });

  if (stepUp) {
    return (
      <Card title="Two-step verification" headingLevel={1}>
        <p>Enter the 6-digit code from your authenticator app.</p>
        <form className="kz-stack" onSubmit={verifyTotp} noValidate>
          <TextField label="Authentication code" name="totp" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]*" maxLength={6}
            value={code} onChange={(e) => setCode(e.target.value)} required autoFocus />
          <ErrorSummary error={error} />
          <Button type="submit" busy={busy}>Verify</Button>
        </form>
      </Card>
    );
  }

  const providers = Object.entries(settings?.external ?? {}).filter(([name, on]) => on && !NOT_PROVIDERS.has(name)).map(([name]) => name);
  const providerHref = (name: string) => apiUrl(`/authorize?provider=${encodeURIComponent(name)}&redirect_to=${encodeURIComponent(hereWithoutFragment())}`);
  return (
    <Card title="Sign in" headingLevel={1}>
      <div className="hz-tabs" role="group" aria-label="Sign in with">
        <Button variant="secondary" aria-pressed={method === 'password'} onClick={() => setMethod('password')}>Password</Button>
        <Button variant="secondary" aria-pressed={method === 'code'} onClick={() => { setMethod('code'); setCode(''); }}>E-mail code</Button>
      </div>
      {method === 'password' ? (
        <form className="kz-stack" onSubmit={signInWithPassword} noValidate aria-label="Sign in with a password">
          <TextField label="E-mail" name="email" type="email" autoComplete="username webauthn" value={email} onChange={(e) => setEmail(e.target.value)} required />
          <TextField label="Password" name="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} required />
          <Button type="submit" busy={busy}>Sign in</Button>
        </form>
      ) : (
        <form className="kz-stack" onSubmit={codeSent ? signInWithCode : sendCode} noValidate aria-label="Sign in with an e-mailed code">
          <TextField label="E-mail" name="email" type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} required />
          {codeSent && (
            <>
              <Alert kind="success">We sent a code and a sign-in link to {email}.</Alert>
              <TextField label="Code from the e-mail" name="code" inputMode="numeric" autoComplete="one-time-code" value={code} onChange={(e) => setCode(e.target.value)} required />
            </>
          )}
          <Button type="submit" busy={busy}>{codeSent ? 'Sign in' : 'Send me a code'}</Button>
        </form>
      )}
      <ErrorSummary error={error} />
      {(settings?.passkeys_enabled || providers.length > 0) && <p className="hz-divider">or</p>}
      <div className="hz-providers">
        {settings?.passkeys_enabled && <Button variant="secondary" busy={busy} onClick={() => void signInWithPasskey()}>Sign in with a passkey</Button>}
        {providers.map((name) => (
          <a key={name} className="kz-button kz-secondary" href={providerHref(name)}>Continue with {label(name)}</a>
        ))}
      </div>
      {settings?.saml_enabled && (
        <form className="kz-stack" onSubmit={signInWithSso} noValidate aria-label="Single sign-on">
          <TextField label="Company domain for single sign-on" name="domain" hint="For example example.com" value={domain} onChange={(e) => setDomain(e.target.value)} required />
          <Button type="submit" variant="secondary" busy={busy}>Continue with SSO</Button>
        </form>
      )}
      <p className="kz-row">
        <a href={`recover${continuationQuery()}`}>Forgot your password?</a>
        {settings && !settings.disable_signup && <a href={`sign-up${continuationQuery()}`}>Create an account</a>}
      </p>
    </Card>
  );
}
