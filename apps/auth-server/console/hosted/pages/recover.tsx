// Password recovery: ask for the mail (POST /recover, its link back to reset-password), then choose a new password
// with the recovery session the link brought in the fragment (PUT /user), and stay signed in.
import { useEffect, useState, type FormEvent } from 'react';
import { Alert, Button, Card, ErrorSummary, TextField, requestJson } from '@keyzone/ui/browser';
import { apiUrl } from '../../shared/api-base';
import { adoptSession } from '../../shared/session';
import { continuationQuery, continueAfterSignIn } from '../continuation';

export function RecoverPage() {
  const [email, setEmail] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error>();
  const [sent, setSent] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const back = `${location.origin}${location.pathname.replace(/recover$/, 'reset-password')}${continuationQuery()}`;
      await requestJson(apiUrl(`/recover?redirect_to=${encodeURIComponent(back)}`), { body: { email } });
      setSent(true);
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Card title="Reset your password" headingLevel={1}>
      {sent ? (
        <Alert kind="success">If {email} has an account, we sent it a link to choose a new password.</Alert>
      ) : (
        <form className="kz-stack" onSubmit={submit} noValidate aria-label="Reset your password">
          <TextField label="E-mail" name="email" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} required />
          <ErrorSummary error={error} />
          <Button type="submit" busy={busy}>Send the link</Button>
        </form>
      )}
      <p><a href={`sign-in${continuationQuery()}`}>Back to sign in</a></p>
    </Card>
  );
}

export function ResetPasswordPage() {
  const [tokens] = useState(() => {
    const fragment = new URLSearchParams(location.hash.slice(1));
    const access = fragment.get('access_token');
    const refresh = fragment.get('refresh_token');
    return access && refresh ? { access, refresh } : undefined;
  });
  const [linkError] = useState(() => new URLSearchParams(location.hash.slice(1)).get('error_description') ?? undefined);
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error>();
  useEffect(() => {
    if (location.hash) history.replaceState(null, '', location.pathname + location.search);
  }, []);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!tokens) return;
    setBusy(true);
    setError(undefined);
    try {
      await requestJson(apiUrl('/user'), { method: 'PUT', body: { password }, headers: { authorization: `Bearer ${tokens.access}` } });
      const session = await adoptSession({ refresh_token: tokens.refresh });
      continueAfterSignIn(session.continue_to);
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };
  if (!tokens) {
    return (
      <Card title="Choose a new password" headingLevel={1}>
        <Alert kind="error">{linkError ?? 'This page needs the link from the recovery e-mail.'}</Alert>
        <p><a href={`recover${continuationQuery()}`}>Ask for a new link</a></p>
      </Card>
    );
  }
  return (
    <Card title="Choose a new password" headingLevel={1}>
      <form className="kz-stack" onSubmit={submit} noValidate aria-label="Choose a new password">
        <TextField label="New password" name="password" type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} required />
        <ErrorSummary error={error} />
        <Button type="submit" busy={busy}>Save the password</Button>
      </form>
    </Card>
  );
}
