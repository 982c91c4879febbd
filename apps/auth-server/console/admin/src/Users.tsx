// Users: search (e-mail or name substring, exact id, exact phone), filters, keyset pages; create and invite.
import { useCallback, useState, type FormEvent } from 'react';
import { Alert, Button, Card, ErrorSummary, KeysetTable, SelectField, TextField, type Column } from '@keyzone/ui/browser';
import type { Api } from './session';
import { BASE } from './router';
import { formatDate, isBanned, type User } from './users-model';

const TRI = [['', 'Either'], ['true', 'Yes'], ['false', 'No']] as const;

interface Filters {
  filter: string;
  confirmed: string;
  banned: string;
  anonymous: string;
  has_mfa: string;
  provider: string;
}

const EMPTY: Filters = { filter: '', confirmed: '', banned: '', anonymous: '', has_mfa: '', provider: '' };

const columns: Column<User>[] = [
  { header: 'E-mail or phone', cell: (u) => <a href={`${BASE}/users/${u.id}`}>{u.email || u.phone || u.id}</a> },
  { header: 'Created', cell: (u) => formatDate(u.created_at) },
  { header: 'Last sign-in', cell: (u) => formatDate(u.last_sign_in_at) },
  { header: 'Providers', cell: (u) => (u.app_metadata?.providers as string[] | undefined)?.join(', ') ?? '' },
  { header: 'State', cell: (u) => [isBanned(u) ? 'banned' : '', u.is_anonymous ? 'anonymous' : '', u.email_confirmed_at || u.phone_confirmed_at ? 'confirmed' : 'unconfirmed'].filter(Boolean).join(', ') },
];

export function UsersScreen(props: { api: Api }) {
  const { api } = props;
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [applied, setApplied] = useState<Filters>(EMPTY);
  const load = useCallback(async (cursor: string | undefined, signal: AbortSignal) => {
    const params = new URLSearchParams({ limit: '25' });
    for (const [key, value] of Object.entries(applied)) if (value.trim()) params.set(key, value.trim());
    if (cursor) params.set('cursor', cursor);
    const page = await api<{ users: User[]; pagination: { next_cursor?: string } }>(`/admin/users?${params.toString()}`, { signal });
    return { rows: page.users, nextCursor: page.pagination.next_cursor };
  }, [api, applied]);

  const set = (key: keyof Filters) => (event: { target: { value: string } }) => setDraft((d) => ({ ...d, [key]: event.target.value }));
  const tri = (key: keyof Filters, label: string) => (
    <SelectField label={label} value={draft[key]} onChange={set(key)}>
      {TRI.map(([value, text]) => <option key={value} value={value}>{text}</option>)}
    </SelectField>
  );

  return (
    <div className="kz-stack">
      <h1>Users</h1>
      <Card title="Find users">
        <form role="search" className="kz-stack" onSubmit={(e) => { e.preventDefault(); setApplied(draft); }}>
          <TextField label="E-mail, name, phone or user id" type="search" value={draft.filter} onChange={set('filter')} />
          <div className="ac-filters">
            {tri('confirmed', 'Confirmed')}
            {tri('banned', 'Banned')}
            {tri('anonymous', 'Anonymous')}
            {tri('has_mfa', 'Has MFA')}
            <TextField label="Provider" hint="email, phone, google, sso:<id>…" value={draft.provider} onChange={set('provider')} />
          </div>
          <div className="kz-row"><Button type="submit">Search</Button></div>
        </form>
      </Card>
      <KeysetTable caption="Users" columns={columns} rowKey={(u) => u.id} load={load} empty="No user matches." />
      <CreateUser api={api} />
    </div>
  );
}

function CreateUser(props: { api: Api }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [mode, setMode] = useState<'create' | 'invite'>('create');
  const [error, setError] = useState<Error | undefined>();
  const [done, setDone] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setDone(undefined);
    try {
      if (mode === 'invite') {
        await props.api('/invite', { body: { email } });
        setDone(`An invitation was sent to ${email}.`);
      } else {
        const user = await props.api<User>('/admin/users', { body: { email, password: password || undefined, email_confirm: true } });
        setDone(`User ${user.email ?? user.id} was created.`);
      }
      setEmail('');
      setPassword('');
    } catch (cause) {
      setError(cause as Error);
    } finally {
      setBusy(false);
    }
  }
  return (
    <Card title="Add a user">
      <form className="kz-stack" onSubmit={submit}>
        <SelectField label="How" value={mode} onChange={(e) => setMode(e.target.value as 'create' | 'invite')}>
          <option value="create">Create with a password (e-mail confirmed)</option>
          <option value="invite">Invite by e-mail</option>
        </SelectField>
        <TextField label="E-mail" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        {mode === 'create' && <TextField label="Password" type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} />}
        <ErrorSummary error={error} />
        {done && <Alert kind="success"><p>{done}</p></Alert>}
        <div className="kz-row"><Button type="submit" busy={busy}>{mode === 'invite' ? 'Send invitation' : 'Create user'}</Button></div>
      </form>
    </Card>
  );
}
