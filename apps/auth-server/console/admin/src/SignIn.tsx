// Sign-in: e-mail and password, then the second factor when the console asks for AAL2 (or the admin has one).
import { useState, type FormEvent } from 'react';
import { Alert, Button, Card, ErrorSummary, Shell, TextField } from '@keyzone/ui/browser';
import { adminApi, claimsOf, signInWithPassword, verifyTotp, type Tokens } from './session';

export function SignIn(props: {
  requireAal2: boolean;
  refused?: string;
  /** A session below AAL2 that only needs its second factor. */
  pending?: Tokens;
  onSignedIn(tokens: Tokens): Promise<void>;
}) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [pending, setPending] = useState<Tokens | undefined>(props.pending);
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);

  const totp = pending?.user.factors?.find((f) => f.factor_type === 'totp' && f.status === 'verified');

  async function submitPassword(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const tokens = await signInWithPassword(email, password);
      // The admin API decides who is an admin (JWT_ADMIN_ROLES); ask it before asking for a second factor.
      // (An admin below AAL2 is answered insufficient_aal: an admin, who needs the second factor next.)
      await adminApi(tokens, () => undefined)('/admin/users?limit=1').catch((cause: Error & { status?: number; code?: string }) => {
        if (cause.code === 'insufficient_aal') return;
        throw cause.status === 403 ? new Error('This account may not use the admin console: its role is not an admin role.') : cause;
      });
      const hasFactor = tokens.user.factors?.some((f) => f.factor_type === 'totp' && f.status === 'verified');
      if (claimsOf(tokens.access_token).aal !== 'aal2' && (hasFactor || props.requireAal2)) setPending(tokens);
      else await props.onSignedIn(tokens);
    } catch (cause) {
      setError(cause as Error);
    } finally {
      setBusy(false);
    }
  }

  async function submitCode(event: FormEvent) {
    event.preventDefault();
    if (!pending || !totp) return;
    setBusy(true);
    setError(undefined);
    try {
      await props.onSignedIn(await verifyTotp(pending, totp.id, code.trim()));
    } catch (cause) {
      setError(cause as Error);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Shell product="Keyzone Auth admin" narrow>
      <h1>{pending ? 'Second factor' : 'Sign in'}</h1>
      {props.refused && <Alert kind="error"><p>{props.refused}</p></Alert>}
      <ErrorSummary error={error} />
      {!pending && (
        <Card>
          <form className="kz-stack" onSubmit={submitPassword}>
            <TextField label="E-mail" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
            <TextField label="Password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
            <Button type="submit" busy={busy}>Sign in</Button>
          </form>
          <p>Or use the <a href="/hosted/sign-in?redirect_to=%2Fadmin%2Fconsole%2F">sign-in page</a> (providers, passkeys, SSO): you come back here signed in.</p>
        </Card>
      )}
      {pending && totp && (
        <Card>
          <form className="kz-stack" onSubmit={submitCode}>
            <p>The admin console needs your second factor. Enter the code from your authenticator app.</p>
            <TextField label="Authentication code" inputMode="numeric" autoComplete="one-time-code" required value={code} onChange={(e) => setCode(e.target.value)} />
            <Button type="submit" busy={busy}>Verify</Button>
          </form>
        </Card>
      )}
      {pending && !totp && (
        <Alert kind="error">
          <p>The admin console needs a second factor, and this account has none. Enrol an authenticator app first, then sign in again.</p>
        </Alert>
      )}
    </Shell>
  );
}
