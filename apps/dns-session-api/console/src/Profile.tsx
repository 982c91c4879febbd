// The signed-in user's own profile (name, e-mail) and password, through PUT /user/<id> like any client. A new
// password ends the user's other sessions (the API does that); this one stays signed in.
import { useEffect, useState, type FormEvent } from 'react';
import { ApiError, Button, Card, ErrorSummary, fieldError, StatusMessage, TextField } from '@keyzone/ui/browser';
import { api } from './api';

interface User {
  id: number;
  username: string;
  first_name: string;
  last_name: string;
  email: string;
}

export function Profile(props: { userId: number }) {
  const [user, setUser] = useState<User | undefined>();
  const [form, setForm] = useState({ first_name: '', last_name: '', email: '' });
  const [passwords, setPasswords] = useState({ password: '', confirm: '' });
  const [error, setError] = useState<ApiError | Error | undefined>();
  const [passwordError, setPasswordError] = useState<ApiError | Error | undefined>();
  const [status, setStatus] = useState<string | undefined>();

  useEffect(() => {
    api<{ user: User }>(`user/${props.userId}`).then(({ user: u }) => {
      setUser(u);
      setForm({ first_name: u.first_name, last_name: u.last_name, email: u.email });
    }, (err: Error) => setError(err));
  }, [props.userId]);

  async function saveProfile(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    try {
      const { user: u } = await api<{ user: User }>(`user/${props.userId}`, { method: 'PUT', body: form });
      setUser(u);
      setStatus('Your profile was saved.');
    } catch (err) {
      setError(err as Error);
    }
  }

  async function savePassword(event: FormEvent) {
    event.preventDefault();
    setPasswordError(undefined);
    if (passwords.password !== passwords.confirm) {
      setPasswordError(new ApiError(400, 'The two passwords differ.', undefined, [{ field: 'confirm', message: 'does not match the new password' }]));
      return;
    }
    try {
      await api(`user/${props.userId}`, { method: 'PUT', body: { password: passwords.password } });
      setPasswords({ password: '', confirm: '' });
      setStatus('Your password was changed; your other sessions were ended.');
    } catch (err) {
      setPasswordError(err as Error);
    }
  }

  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [key]: e.target.value }));
  return (
    <div className="kz-stack">
      <h1>Your profile{user ? `: ${user.username}` : ''}</h1>
      <StatusMessage>{status}</StatusMessage>
      <Card title="Name and e-mail">
        <form className="kz-stack" onSubmit={(e) => void saveProfile(e)} noValidate>
          <ErrorSummary error={error} />
          <TextField label="First name" autoComplete="given-name" value={form.first_name} onChange={set('first_name')} error={fieldError(error, 'first_name')} />
          <TextField label="Last name" autoComplete="family-name" value={form.last_name} onChange={set('last_name')} error={fieldError(error, 'last_name')} />
          <TextField label="E-mail" type="email" autoComplete="email" value={form.email} onChange={set('email')} error={fieldError(error, 'email')} />
          <div><Button type="submit">Save profile</Button></div>
        </form>
      </Card>
      <Card title="Password">
        <form className="kz-stack" onSubmit={(e) => void savePassword(e)} noValidate>
          <ErrorSummary error={passwordError} />
          <TextField label="New password" type="password" autoComplete="new-password" value={passwords.password}
            onChange={(e) => setPasswords((p) => ({ ...p, password: e.target.value }))} error={fieldError(passwordError, 'password')} />
          <TextField label="New password again" type="password" autoComplete="new-password" value={passwords.confirm}
            onChange={(e) => setPasswords((p) => ({ ...p, confirm: e.target.value }))} error={fieldError(passwordError, 'confirm')} />
          <div><Button type="submit">Change password</Button></div>
        </form>
      </Card>
    </div>
  );
}
