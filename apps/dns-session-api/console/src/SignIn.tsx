// Sign in with user@group and password. Used as the first screen and, when a session ends, inside a modal over
// the screen the user was on (which stays mounted, so what they typed there is still there afterwards).
import { useEffect, useState, type FormEvent } from 'react';
import { ApiError, Button, ErrorSummary, fieldError, requestJson, TextField } from '@keyzone/ui/browser';
import type { Login } from './api';

// What a failed provider sign-in comes back with (`/?oidc_error=<code>`), in words.
const OIDC_ERRORS: Record<string, string> = {
  not_linked: 'You signed in at the provider, but no DNS user is linked to that account. Ask an administrator to link it.',
  invalid_state: 'That sign-in was not started here or has expired. Start again.',
  unavailable: 'The sign-in provider cannot be reached right now. Try again shortly, or use your password.',
  provider_error: 'The sign-in provider did not sign you in. Start again.',
  exchange_failed: 'The sign-in provider refused this sign-in. Start again.',
  email_not_verified: 'Your e-mail address is not verified at the provider, so it cannot be linked to a DNS user.',
};

/** The provider's button, where auth.yml configures one (GET /session/oidc/config); it leaves the page. */
function ProviderSignIn() {
  const [label, setLabel] = useState<string | undefined>();
  useEffect(() => {
    requestJson<{ oidc: { enabled: boolean; label?: string } }>('session/oidc/config')
      .then((r) => setLabel(r.oidc.enabled ? (r.oidc.label ?? 'Sign in with your provider') : undefined), () => setLabel(undefined));
  }, []);
  if (!label) return null;
  const back = `/${window.location.hash || '#/zones'}`;
  return <a className="kz-button kz-secondary" href={`session/oidc?redirect_to=${encodeURIComponent(back)}`}>{label}</a>;
}

export function SignInForm(props: { onSignedIn(login: Login): void; expired?: boolean }) {
  const [oidcError] = useState(() => {
    const code = new URLSearchParams(window.location.search).get('oidc_error');
    return code ? (OIDC_ERRORS[code] ?? `Signing in with the provider failed (${code}).`) : undefined;
  });
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<ApiError | Error | undefined>();
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const login = await requestJson<Login>('session', { body: { username, password } });
      setPassword('');
      props.onSignedIn(login);
    } catch (err) {
      setError(err instanceof ApiError && err.status === 401 ? new ApiError(401, 'The user, group or password is not right.') : (err as Error));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="kz-stack" onSubmit={(e) => void submit(e)} noValidate>
      {props.expired && <p>Your session ended. Sign in again to carry on where you were; nothing you typed is lost.</p>}
      {oidcError && !error && <ErrorSummary error={new Error(oidcError)} />}
      <ErrorSummary error={error} />
      <TextField label="User" name="username" autoComplete="username" hint="user@group, e.g. alice@example.com" required
        value={username} onChange={(e) => setUsername(e.target.value)} error={fieldError(error, 'username')} />
      <TextField label="Password" name="password" type="password" autoComplete="current-password" required
        value={password} onChange={(e) => setPassword(e.target.value)} error={fieldError(error, 'password')} />
      <Button type="submit" busy={busy}>Sign in</Button>
      {/* Not over an ended session: leaving the page for the provider would lose what was typed on it. */}
      {!props.expired && <ProviderSignIn />}
    </form>
  );
}
