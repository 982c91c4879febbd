// Custom OAuth 2.0 / OpenID Connect providers (/admin/custom-providers). The client secret is write-only: the
// server seals it and never returns it.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { Alert, Button, Card, ErrorSummary, SelectField, TextField, fieldError } from '@keyzone/ui/browser';
import type { Api } from './session';

interface CustomProvider {
  id: string;
  identifier: string;
  name: string;
  provider_type: string;
  enabled?: boolean;
  issuer?: string;
  client_id?: string;
}

export function CustomProvidersScreen(props: { api: Api }) {
  const { api } = props;
  const [providers, setProviders] = useState<CustomProvider[] | undefined>();
  const [listError, setListError] = useState<Error | undefined>();
  const load = useCallback(() => { api<{ providers: CustomProvider[] }>('/admin/custom-providers').then((r) => setProviders(r.providers), setListError); }, [api]);
  useEffect(load, [load]);
  return (
    <div className="kz-stack">
      <h1>Custom providers</h1>
      <ErrorSummary error={listError} />
      {providers && (
        <div className="kz-table-wrap">
          <table className="kz-table">
            <caption>Custom OAuth and OpenID Connect providers</caption>
            <thead><tr><th scope="col">Identifier</th><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Issuer</th><th scope="col">Client ID</th><th scope="col">Enabled</th></tr></thead>
            <tbody>
              {providers.length === 0 && <tr><td colSpan={6}>No custom provider yet.</td></tr>}
              {providers.map((p) => (
                <tr key={p.id}><td>{p.identifier}</td><td>{p.name}</td><td>{p.provider_type}</td><td>{p.issuer ?? '—'}</td><td>{p.client_id ?? '—'}</td><td>{p.enabled === false ? 'no' : 'yes'}</td></tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <AddCustomProvider api={api} onAdded={load} />
    </div>
  );
}

function AddCustomProvider(props: { api: Api; onAdded(): void }) {
  const [form, setForm] = useState({ provider_type: 'oidc', identifier: 'custom:', name: '', issuer: '', client_id: '', client_secret: '', scopes: 'openid email profile' });
  const [error, setError] = useState<Error | undefined>();
  const [done, setDone] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const set = (key: keyof typeof form) => (event: { target: { value: string } }) => setForm((f) => ({ ...f, [key]: event.target.value }));
  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setDone(undefined);
    try {
      const created = await props.api<CustomProvider>('/admin/custom-providers', {
        body: { ...form, scopes: form.scopes.split(/\s+/).filter(Boolean) },
      });
      setDone(`The provider ${created.identifier} was added. Its client secret is stored sealed and is never shown again.`);
      setForm((f) => ({ ...f, identifier: 'custom:', name: '', client_id: '', client_secret: '' }));
      props.onAdded();
    } catch (cause) {
      setError(cause as Error);
    } finally {
      setBusy(false);
    }
  }
  return (
    <Card title="Add an OpenID Connect provider">
      <form className="kz-stack" onSubmit={submit}>
        <SelectField label="Type" value={form.provider_type} onChange={set('provider_type')}>
          <option value="oidc">OpenID Connect (discovered from its issuer)</option>
        </SelectField>
        <TextField label="Identifier" hint="custom:<name>, as apps pass it to signInWithOAuth" required value={form.identifier} onChange={set('identifier')} error={fieldError(error, 'identifier')} />
        <TextField label="Display name" required value={form.name} onChange={set('name')} />
        <TextField label="Issuer" type="url" required value={form.issuer} onChange={set('issuer')} error={fieldError(error, 'issuer')} />
        <TextField label="Client ID" required value={form.client_id} onChange={set('client_id')} />
        <TextField label="Client secret" type="password" autoComplete="off" value={form.client_secret} onChange={set('client_secret')} />
        <TextField label="Scopes" value={form.scopes} onChange={set('scopes')} />
        <ErrorSummary error={error} />
        {done && <Alert kind="success"><p>{done}</p></Alert>}
        <div className="kz-row"><Button type="submit" busy={busy}>Add provider</Button></div>
      </form>
    </Card>
  );
}
