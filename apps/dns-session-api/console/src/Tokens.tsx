// The signed-in user's API tokens for the PowerDNS-compatible API: create one scoped to zones, names and types
// (its secret is shown this once and kept only in this component's memory), list them, revoke one.
import { useEffect, useState, type FormEvent } from 'react';
import { ApiError, Button, Card, ConfirmDialog, CopyButton, ErrorSummary, fieldError, StatusMessage, TextField } from '@keyzone/ui/browser';
import { api, type ApiToken } from './api';

const list = (text: string) => text.split(/[\s,]+/).map((s) => s.trim()).filter(Boolean);

export function Tokens(props: { userId: number }) {
  const [tokens, setTokens] = useState<ApiToken[] | undefined>();
  const [form, setForm] = useState({ name: '', zones: '', names: '', types: '', expires: '' });
  const [secret, setSecret] = useState<{ name: string; token: string } | undefined>();
  const [error, setError] = useState<ApiError | Error | undefined>();
  const [status, setStatus] = useState<string | undefined>();
  const [revoking, setRevoking] = useState<ApiToken | undefined>();
  const [busy, setBusy] = useState(false);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    api<{ api_tokens: ApiToken[] }>(`user/${props.userId}/tokens`).then((r) => setTokens(r.api_tokens), (err: Error) => setError(err));
  }, [props.userId, reload]);

  async function create(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const body: Record<string, unknown> = { name: form.name };
      if (form.zones.trim()) body.zones = list(form.zones).map(Number);
      if (form.names.trim()) body.names = list(form.names);
      if (form.types.trim()) body.types = list(form.types).map((t) => t.toUpperCase());
      if (form.expires) body.expires_at = new Date(`${form.expires}T00:00:00Z`).toISOString();
      const { api_token: created } = await api<{ api_token: ApiToken & { token: string } }>(`user/${props.userId}/tokens`, { body });
      setSecret({ name: created.name, token: created.token });
      setForm({ name: '', zones: '', names: '', types: '', expires: '' });
      setReload((n) => n + 1);
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  }

  async function revoke(token: ApiToken) {
    try {
      await api(`user/${props.userId}/tokens/${token.id}`, { method: 'DELETE' });
      setStatus(`${token.name} was revoked.`);
      setReload((n) => n + 1);
    } catch (err) {
      setError(err as Error);
    } finally {
      setRevoking(undefined);
    }
  }

  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [key]: e.target.value }));
  return (
    <div className="kz-stack">
      <h1>API tokens</h1>
      <p>Tokens for the PowerDNS-compatible API at <code>/api/v1</code> (ACME clients, external-dns, scripts).</p>
      <StatusMessage>{status}</StatusMessage>
      {secret && (
        <Card title={`The token for ${secret.name}`}>
          <p>Copy it now: it is shown this once and cannot be read again.</p>
          <p className="dns-token" data-testid="new-token">{secret.token}</p>
          <div className="kz-row"><CopyButton value={secret.token} label="Copy token" /><Button variant="secondary" onClick={() => setSecret(undefined)}>Done</Button></div>
        </Card>
      )}
      <Card title="New token">
        <form className="kz-stack" onSubmit={(e) => void create(e)} noValidate>
          <ErrorSummary error={error} />
          <TextField label="Name" value={form.name} onChange={set('name')} required hint="what uses it, e.g. lego on web-1" error={fieldError(error, 'name')} />
          <div className="dns-inline">
            <TextField label="Zone ids" value={form.zones} onChange={set('zones')} hint="empty: every zone you manage" error={fieldError(error, 'zones')} />
            <TextField label="Record names" value={form.names} onChange={set('names')} hint="e.g. _acme-challenge.*; empty: any" error={fieldError(error, 'names')} />
            <TextField label="Record types" value={form.types} onChange={set('types')} hint="e.g. TXT; empty: any" error={fieldError(error, 'types')} />
            <TextField label="Expires on" type="date" value={form.expires} onChange={set('expires')} hint="empty: never" error={fieldError(error, 'expires_at')} />
          </div>
          <div><Button type="submit" busy={busy}>Create token</Button></div>
        </form>
      </Card>
      <div className="kz-table-wrap">
        <table>
          <caption className="kz-visually-hidden">Your API tokens</caption>
          <thead><tr><th scope="col">Name</th><th scope="col">Scope</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">State</th><th scope="col"><span className="kz-visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            {tokens?.map((t) => (
              <tr key={t.id}>
                <td>{t.name}</td>
                <td>{[t.zones ? `zones ${t.zones.join(', ')}` : 'all zones', t.names ? `names ${t.names.join(', ')}` : '', t.types ? `types ${t.types.join(', ')}` : ''].filter(Boolean).join('; ')}</td>
                <td>{new Date(t.created_at).toLocaleDateString()}</td>
                <td>{t.last_used_at ? new Date(t.last_used_at).toLocaleString() : 'never'}</td>
                <td>{t.revoked_at ? 'revoked' : t.expires_at && new Date(t.expires_at) < new Date() ? 'expired' : 'active'}</td>
                <td>{!t.revoked_at && <Button variant="secondary" onClick={() => setRevoking(t)} aria-label={`Revoke ${t.name}`}>Revoke</Button>}</td>
              </tr>
            ))}
            {tokens?.length === 0 && <tr><td colSpan={6}>No tokens yet.</td></tr>}
          </tbody>
        </table>
      </div>
      <ConfirmDialog open={revoking !== undefined} title={`Revoke ${revoking?.name ?? ''}?`} confirmLabel="Revoke token" danger
        onConfirm={() => revoking && void revoke(revoking)} onCancel={() => setRevoking(undefined)}>
        <p>Anything using it stops working at once.</p>
      </ConfirmDialog>
    </div>
  );
}
