// Create an account with an e-mail and a password. With autoconfirm the session comes back at once and the browser
// continues; otherwise the confirmation mail's link lands on this server's landing page.
import { useState, type FormEvent } from 'react';
import { Alert, Button, Card, ErrorSummary, TextField, requestJson } from '@keyzone/ui/browser';
import { apiUrl } from '../../shared/api-base';
import { adoptSession, type TokenAnswer } from '../../shared/session';
import { continuationQuery, continueAfterSignIn, requestedRedirect } from '../continuation';

export function SignUpPage() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error>();
  const [mailed, setMailed] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const redirect = `${location.origin}${location.pathname.replace(/sign-up$/, '')}`;
      const answer = await requestJson<Partial<TokenAnswer>>(apiUrl(`/signup?redirect_to=${encodeURIComponent(redirect)}`), { body: { email, password } });
      if (answer.refresh_token) {
        const session = await adoptSession({ refresh_token: answer.refresh_token }, requestedRedirect());
        continueAfterSignIn(session.continue_to);
        return;
      }
      setMailed(true);
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card title="Create an account" headingLevel={1}>
      {mailed ? (
        <Alert kind="success">Check your e-mail: we sent a link to {email} to confirm the address.</Alert>
      ) : (
        <form className="kz-stack" onSubmit={submit} noValidate aria-label="Create an account">
          <TextField label="E-mail" name="email" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} required />
          <TextField label="Password" name="password" type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} required />
          <ErrorSummary error={error} />
          <Button type="submit" busy={busy}>Create account</Button>
        </form>
      )}
      <p><a href={`sign-in${continuationQuery()}`}>Already have an account? Sign in</a></p>
    </Card>
  );
}
