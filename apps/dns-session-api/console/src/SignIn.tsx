// Sign in with user@group and password. Used as the first screen and, when a session ends, inside a modal over
// the screen the user was on (which stays mounted, so what they typed there is still there afterwards).
import { useState, type FormEvent } from 'react';
import { ApiError, Button, ErrorSummary, fieldError, requestJson, TextField } from '@keyzone/ui/browser';
import type { Login } from './api';

export function SignInForm(props: { onSignedIn(login: Login): void; expired?: boolean }) {
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
      <ErrorSummary error={error} />
      <TextField label="User" name="username" autoComplete="username" hint="user@group, e.g. alice@example.com" required
        value={username} onChange={(e) => setUsername(e.target.value)} error={fieldError(error, 'username')} />
      <TextField label="Password" name="password" type="password" autoComplete="current-password" required
        value={password} onChange={(e) => setPassword(e.target.value)} error={fieldError(error, 'password')} />
      <Button type="submit" busy={busy}>Sign in</Button>
    </form>
  );
}
