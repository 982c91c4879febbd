// One user: profile, ban / unban, metadata as validated JSON, identities, MFA factors, passkeys, links and delete.
// Everything the user typed or the metadata holds is rendered as text (React escapes it), never as HTML.
import { useCallback, useEffect, useState } from 'react';
import { Alert, Button, Card, ConfirmDialog, ErrorSummary, JsonField, SelectField, type JsonObject } from '@keyzone/ui/browser';
import type { Api } from './session';
import { BASE, navigate } from './router';
import { formatDate, isBanned, type User } from './users-model';
import { AuditTable } from './Audit';

interface Factor {
  id: string;
  friendly_name?: string;
  factor_type: string;
  status: string;
  created_at?: string;
}

interface Passkey {
  id: string;
  friendly_name?: string;
  created_at?: string;
  last_used_at?: string;
}

const BAN_DURATIONS = [['1h', 'One hour'], ['24h', 'One day'], ['168h', 'One week'], ['720h', '30 days'], ['876000h', 'Indefinitely (100 years)']] as const;

/** The merge patch that turns `before` into `after` (the admin API merges metadata; null removes a key). */
export function metadataPatch(before: JsonObject, after: JsonObject): JsonObject {
  const patch: JsonObject = { ...after };
  for (const key of Object.keys(before)) if (!(key in after)) patch[key] = null;
  return patch;
}

export function UserScreen(props: { api: Api; userId: string }) {
  const { api, userId } = props;
  const path = `/admin/users/${encodeURIComponent(userId)}`;
  const [user, setUser] = useState<User | undefined>();
  const [loadError, setLoadError] = useState<Error | undefined>();
  const [status, setStatus] = useState<string | undefined>();
  const [actionError, setActionError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);
  const [revision, setRevision] = useState(0);

  const reload = useCallback(() => {
    api<User>(path).then((u) => { setUser(u); setLoadError(undefined); }, setLoadError);
  }, [api, path]);
  useEffect(reload, [reload]);

  /** Runs one admin call, then shows what happened and reloads the user. */
  const act = useCallback(async (what: string, call: () => Promise<unknown>) => {
    setBusy(true);
    setActionError(undefined);
    setStatus(undefined);
    try {
      await call();
      setStatus(what);
      setRevision((r) => r + 1);
      reload();
      return true;
    } catch (cause) {
      setActionError(cause as Error);
      return false;
    } finally {
      setBusy(false);
    }
  }, [reload]);

  if (loadError) return <div className="kz-stack"><h1>User</h1><ErrorSummary error={loadError} /></div>;
  if (!user) return <p role="status">Loading the user…</p>;

  return (
    <div className="kz-stack">
      <p><a href={`${BASE}/`}>← Users</a></p>
      <h1>{user.email || user.phone || user.id}</h1>
      <div aria-live="polite">
        {status && <Alert kind="success"><p>{status}</p></Alert>}
      </div>
      <ErrorSummary error={actionError} />
      <Profile user={user} />
      <Ban user={user} busy={busy} onBan={(duration) => act(duration === 'none' ? 'The user was unbanned.' : 'The user was banned.', () => api(path, { method: 'PUT', body: { ban_duration: duration } }))} />
      <Metadata key={user.updated_at} user={user} busy={busy} onSave={(app, meta) => act('The metadata was saved.', () => api(path, { method: 'PUT', body: { app_metadata: metadataPatch(user.app_metadata ?? {}, app), user_metadata: metadataPatch(user.user_metadata ?? {}, meta) } }))} />
      <Identities user={user} />
      <Factors api={api} userId={userId} act={act} />
      <Passkeys api={api} userId={userId} act={act} />
      <Card title="Sessions">
        <p>Signing out everywhere ends every session: refresh tokens and access tokens already issued stop working.</p>
        <div className="kz-row">
          <Button variant="secondary" busy={busy} onClick={() => void act('The user was signed out everywhere.', () => api(`${path}/logout`, { method: 'POST' }))}>Sign out everywhere</Button>
        </div>
      </Card>
      <Links api={api} user={user} act={act} />
      <Card title="Audit trail"><AuditTable api={api} caption="What this user did and what was done to them" filters={{ user_id: user.id }} revision={revision} /></Card>
      <DeleteUser busy={busy} onDelete={async () => { if (await act('The user was deleted.', () => api(path, { method: 'DELETE', body: {} }))) navigate('/'); }} />
    </div>
  );
}

function Profile({ user }: { user: User }) {
  const rows: Array<[string, string]> = [
    ['User id', user.id],
    ['E-mail', user.email || '—'],
    ['Phone', user.phone || '—'],
    ['Role', user.role || '—'],
    ['E-mail confirmed', formatDate(user.email_confirmed_at)],
    ['Phone confirmed', formatDate(user.phone_confirmed_at)],
    ['Created', formatDate(user.created_at)],
    ['Last sign-in', formatDate(user.last_sign_in_at)],
    ['Anonymous', user.is_anonymous ? 'yes' : 'no'],
    ['Banned until', isBanned(user) ? formatDate(user.banned_until) : 'not banned'],
  ];
  return (
    <Card title="Profile">
      <dl className="ac-dl">{rows.map(([k, v]) => [<dt key={`${k}-t`}>{k}</dt>, <dd key={`${k}-d`}>{v}</dd>])}</dl>
    </Card>
  );
}

function Ban(props: { user: User; busy: boolean; onBan(duration: string): void }) {
  const [duration, setDuration] = useState<string>('24h');
  const banned = isBanned(props.user);
  return (
    <Card title="Access">
      <p>{banned ? `Banned until ${formatDate(props.user.banned_until)}: the user cannot sign in or refresh a session.` : 'The user may sign in.'}</p>
      <div className="kz-row">
        {banned ? (
          <Button busy={props.busy} onClick={() => props.onBan('none')}>Unban</Button>
        ) : (
          <>
            <SelectField label="Ban for" value={duration} onChange={(e) => setDuration(e.target.value)}>
              {BAN_DURATIONS.map(([value, text]) => <option key={value} value={value}>{text}</option>)}
            </SelectField>
            <Button variant="danger" busy={props.busy} onClick={() => props.onBan(duration)}>Ban</Button>
          </>
        )}
      </div>
    </Card>
  );
}

function Metadata(props: { user: User; busy: boolean; onSave(app: JsonObject, meta: JsonObject): void }) {
  const [app, setApp] = useState<JsonObject | undefined>(props.user.app_metadata ?? {});
  const [meta, setMeta] = useState<JsonObject | undefined>(props.user.user_metadata ?? {});
  return (
    <Card title="Metadata">
      <JsonField label="app_metadata" hint="Set by admins only; provider and providers are kept by the server." initial={props.user.app_metadata ?? {}} onValid={setApp} />
      <JsonField label="user_metadata" hint="The user may change this themselves." initial={props.user.user_metadata ?? {}} onValid={setMeta} />
      <div className="kz-row">
        <Button busy={props.busy} disabled={!app || !meta} onClick={() => app && meta && props.onSave(app, meta)}>Save metadata</Button>
      </div>
    </Card>
  );
}

function Identities({ user }: { user: User }) {
  const identities = user.identities ?? [];
  return (
    <Card title="Identities">
      {identities.length === 0 ? <p>No identity.</p> : (
        <ul>{identities.map((i) => <li key={i.identity_id ?? `${i.provider}:${i.id}`}>{i.provider}{i.email ? ` (${i.email})` : ''}, last sign-in {formatDate(i.last_sign_in_at)}</li>)}</ul>
      )}
    </Card>
  );
}

function Factors(props: { api: Api; userId: string; act(what: string, call: () => Promise<unknown>): Promise<boolean> }) {
  const { api, userId } = props;
  const [factors, setFactors] = useState<Factor[] | undefined>();
  const [error, setError] = useState<Error | undefined>();
  const [removing, setRemoving] = useState<Factor | undefined>();
  const base = `/admin/users/${encodeURIComponent(userId)}/factors`;
  const load = useCallback(() => { api<Factor[]>(base).then(setFactors, setError); }, [api, base]);
  useEffect(load, [load]);
  return (
    <Card title="MFA factors">
      <ErrorSummary error={error} />
      {factors && factors.length === 0 && <p>No factor.</p>}
      {factors && factors.length > 0 && (
        <ul className="kz-stack">
          {factors.map((f) => (
            <li key={f.id} className="kz-row">
              <span>{f.friendly_name || f.factor_type} ({f.factor_type}, {f.status}, added {formatDate(f.created_at)})</span>
              <Button variant="danger" onClick={() => setRemoving(f)}>Remove <span className="kz-visually-hidden">{f.friendly_name || f.factor_type}</span></Button>
            </li>
          ))}
        </ul>
      )}
      <ConfirmDialog
        open={Boolean(removing)}
        title="Remove this factor?"
        confirmLabel="Remove factor"
        danger
        onCancel={() => setRemoving(undefined)}
        onConfirm={() => {
          const factor = removing;
          setRemoving(undefined);
          if (factor) void props.act('The factor was removed.', () => api(`${base}/${encodeURIComponent(factor.id)}`, { method: 'DELETE' })).then(load);
        }}
      >
        <p>{removing ? `${removing.friendly_name || removing.factor_type}: the user's sessions that used it drop to AAL1.` : ''}</p>
      </ConfirmDialog>
    </Card>
  );
}

/** A lost or stolen device: removing its passkey also ends the sessions it signed in (the server does both). */
function Passkeys(props: { api: Api; userId: string; act(what: string, call: () => Promise<unknown>): Promise<boolean> }) {
  const { api, userId } = props;
  const [passkeys, setPasskeys] = useState<Passkey[] | undefined>();
  const [error, setError] = useState<Error | undefined>();
  const [removing, setRemoving] = useState<Passkey | undefined>();
  const base = `/admin/users/${encodeURIComponent(userId)}/passkeys`;
  const load = useCallback(() => { api<Passkey[]>(base).then((list) => { setPasskeys(list); setError(undefined); }, setError); }, [api, base]);
  useEffect(load, [load]);
  const name = (p: Passkey) => p.friendly_name || `Passkey ${p.id.slice(0, 8)}`;
  return (
    <Card title="Passkeys">
      {error && <p>{error.message}</p>}
      {passkeys && passkeys.length === 0 && <p>No passkey.</p>}
      {passkeys && passkeys.length > 0 && (
        <ul className="kz-stack">
          {passkeys.map((p) => (
            <li key={p.id} className="kz-row">
              <span>{name(p)} (added {formatDate(p.created_at)}, last used {formatDate(p.last_used_at)})</span>
              <Button variant="danger" onClick={() => setRemoving(p)}>Remove <span className="kz-visually-hidden">passkey {name(p)}</span></Button>
            </li>
          ))}
        </ul>
      )}
      <ConfirmDialog
        open={Boolean(removing)}
        title="Remove this passkey?"
        confirmLabel="Remove passkey"
        danger
        onCancel={() => setRemoving(undefined)}
        onConfirm={() => {
          const passkey = removing;
          setRemoving(undefined);
          if (passkey) void props.act('The passkey was removed.', () => api(`${base}/${encodeURIComponent(passkey.id)}`, { method: 'DELETE' })).then(load);
        }}
      >
        <p>{removing ? `${name(removing)}: it can no longer sign in, and the sessions it signed in end now.` : ''}</p>
      </ConfirmDialog>
    </Card>
  );
}

function Links(props: { api: Api; user: User; act(what: string, call: () => Promise<unknown>): Promise<boolean> }) {
  const [type, setType] = useState('magiclink');
  const [link, setLink] = useState<string | undefined>();
  const email = props.user.email;
  if (!email) return null;
  return (
    <Card title="E-mail links">
      <div className="kz-row">
        <Button variant="secondary" onClick={() => void props.act('The confirmation was sent again.', () => props.api('/resend', { body: { type: 'signup', email } }))} disabled={Boolean(props.user.email_confirmed_at)}>
          Resend confirmation
        </Button>
      </div>
      <div className="kz-row">
        <SelectField label="Link type" value={type} onChange={(e) => setType(e.target.value)}>
          <option value="magiclink">Magic link</option>
          <option value="recovery">Password recovery</option>
        </SelectField>
        <Button variant="secondary" onClick={() => void props.act('A link was generated (no e-mail was sent).', async () => {
          const result = await props.api<{ action_link?: string; properties?: { action_link?: string } }>('/admin/generate_link', { body: { type, email } });
          setLink(result.action_link ?? result.properties?.action_link);
        })}>Generate link</Button>
      </div>
      {link && <p className="ac-pre kz-mono">{link}</p>}
    </Card>
  );
}

function DeleteUser(props: { busy: boolean; onDelete(): void }) {
  const [open, setOpen] = useState(false);
  return (
    <Card title="Delete">
      <p>Deleting a user removes their identities, factors, passkeys and sessions.</p>
      <div className="kz-row"><Button variant="danger" busy={props.busy} onClick={() => setOpen(true)}>Delete user</Button></div>
      <ConfirmDialog open={open} title="Delete this user?" confirmLabel="Delete user" danger onCancel={() => setOpen(false)} onConfirm={() => { setOpen(false); props.onDelete(); }}>
        <p>This cannot be undone.</p>
      </ConfirmDialog>
    </Card>
  );
}
