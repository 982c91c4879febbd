// The OAuth server's clients (/admin/oauth/clients): list, register (the secret shown once), regenerate a
// secret (shown once), delete. Only where OAUTH_SERVER_ENABLED; otherwise the screen says so.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { ApiError, Alert, Button, Card, ConfirmDialog, CopyButton, ErrorSummary, SelectField, TextField } from '@keyzone/ui/browser';
import type { Api } from './session';
import { formatDate } from './users-model';

interface OAuthClient {
  client_id: string;
  client_name?: string;
  client_type?: string;
  redirect_uris?: string[];
  created_at?: string;
  client_secret?: string;
}

export function OAuthClientsScreen(props: { api: Api }) {
  const { api } = props;
  const [clients, setClients] = useState<OAuthClient[] | undefined>();
  const [error, setError] = useState<Error | undefined>();
  const [off, setOff] = useState(false);
  const [secret, setSecret] = useState<{ client: string; value: string } | undefined>();
  const [deleting, setDeleting] = useState<OAuthClient | undefined>();
  const load = useCallback(() => {
    api<{ clients: OAuthClient[] }>('/admin/oauth/clients?per_page=100').then(
      (r) => setClients(r.clients),
      (cause: Error) => (cause instanceof ApiError && cause.status === 404 ? setOff(true) : setError(cause)),
    );
  }, [api]);
  useEffect(load, [load]);

  if (off) {
    return <div className="kz-stack"><h1>OAuth clients</h1><p>The OAuth server is off. Set OAUTH_SERVER_ENABLED=true (with an asymmetric signing key) to register clients.</p></div>;
  }
  const regenerate = (client: OAuthClient) => {
    api<OAuthClient>(`/admin/oauth/clients/${encodeURIComponent(client.client_id)}/regenerate_secret`, { method: 'POST' }).then(
      (r) => { if (r.client_secret) setSecret({ client: client.client_name ?? client.client_id, value: r.client_secret }); },
      setError,
    );
  };
  return (
    <div className="kz-stack">
      <h1>OAuth clients</h1>
      <ErrorSummary error={error} />
      {secret && (
        <Alert kind="success">
          <p>The client secret of {secret.client}. It is shown only now: copy it into the client's configuration.</p>
          <p className="kz-mono ac-pre">{secret.value}</p>
          <CopyButton value={secret.value} label="Copy the secret" />
        </Alert>
      )}
      {clients && (
        <div className="kz-table-wrap">
          <table className="kz-table">
            <caption>OAuth clients</caption>
            <thead><tr><th scope="col">Name</th><th scope="col">Client ID</th><th scope="col">Type</th><th scope="col">Redirect URIs</th><th scope="col">Added</th><th scope="col">Actions</th></tr></thead>
            <tbody>
              {clients.length === 0 && <tr><td colSpan={6}>No client yet.</td></tr>}
              {clients.map((c) => (
                <tr key={c.client_id}>
                  <td>{c.client_name ?? '—'}</td>
                  <td className="kz-mono">{c.client_id}</td>
                  <td>{c.client_type ?? ''}</td>
                  <td>{(c.redirect_uris ?? []).join(' ')}</td>
                  <td>{formatDate(c.created_at)}</td>
                  <td className="kz-row">
                    {c.client_type !== 'public' && <Button variant="secondary" onClick={() => regenerate(c)}>New secret</Button>}
                    <Button variant="danger" onClick={() => setDeleting(c)}>Delete</Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ConfirmDialog
        open={Boolean(deleting)}
        title="Delete this client?"
        confirmLabel="Delete client"
        danger
        onCancel={() => setDeleting(undefined)}
        onConfirm={() => {
          const client = deleting;
          setDeleting(undefined);
          if (client) api(`/admin/oauth/clients/${encodeURIComponent(client.client_id)}`, { method: 'DELETE' }).then(load, setError);
        }}
      >
        <p>Its sessions end and its tokens stop working.</p>
      </ConfirmDialog>
      <RegisterClient api={api} onRegistered={(c) => { if (c.client_secret) setSecret({ client: c.client_name ?? c.client_id, value: c.client_secret }); load(); }} />
    </div>
  );
}

function RegisterClient(props: { api: Api; onRegistered(client: OAuthClient): void }) {
  const [name, setName] = useState('');
  const [uris, setUris] = useState('');
  const [type, setType] = useState('confidential');
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);
  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      props.onRegistered(await props.api<OAuthClient>('/admin/oauth/clients', {
        body: { client_name: name, client_type: type, redirect_uris: uris.split(/\s+/).filter(Boolean) },
      }));
      setName('');
      setUris('');
    } catch (cause) {
      setError(cause as Error);
    } finally {
      setBusy(false);
    }
  }
  return (
    <Card title="Register a client">
      <form className="kz-stack" onSubmit={submit}>
        <TextField label="Name" required value={name} onChange={(e) => setName(e.target.value)} />
        <TextField label="Redirect URIs" hint="Separated by spaces" required value={uris} onChange={(e) => setUris(e.target.value)} />
        <SelectField label="Client type" value={type} onChange={(e) => setType(e.target.value)}>
          <option value="confidential">Confidential (a server: gets a secret)</option>
          <option value="public">Public (a browser or mobile app: PKCE, no secret)</option>
        </SelectField>
        <ErrorSummary error={error} />
        <div className="kz-row"><Button type="submit" busy={busy}>Register client</Button></div>
      </form>
    </Card>
  );
}
