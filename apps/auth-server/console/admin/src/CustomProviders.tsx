// Custom OAuth 2.0 / OpenID Connect providers (/admin/custom-providers): the list, add one of either type (OIDC:
// discovered from its issuer; OAuth 2.0: its authorization, token and userinfo URLs), edit one, delete one. The client
// secret is write-only: the server seals it and never returns it, so an edit leaves it unchanged unless a new one is
// typed. The server's validation messages show at the field they name (field-errors.ts).
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { Alert, Button, Card, ConfirmDialog, ErrorSummary, JsonField, SelectField, TextField, type JsonObject } from '@keyzone/ui/browser';
import type { Api } from './session';
import { errorAt } from './field-errors';

type ProviderType = 'oidc' | 'oauth2';

interface CustomProvider {
  id: string;
  identifier: string;
  name: string;
  provider_type: ProviderType;
  enabled?: boolean;
  pkce_enabled?: boolean;
  email_optional?: boolean;
  issuer?: string;
  discovery_url?: string;
  authorization_url?: string;
  token_url?: string;
  userinfo_url?: string;
  jwks_uri?: string;
  client_id?: string;
  scopes?: string[];
  attribute_mapping?: JsonObject;
}

interface Draft {
  provider_type: ProviderType;
  identifier: string;
  name: string;
  issuer: string;
  discovery_url: string;
  authorization_url: string;
  token_url: string;
  userinfo_url: string;
  jwks_uri: string;
  client_id: string;
  client_secret: string;
  scopes: string;
  pkce_enabled: string;
  enabled: string;
  email_optional: string;
}

const NEW: Draft = {
  provider_type: 'oidc', identifier: 'custom:', name: '', issuer: '', discovery_url: '', authorization_url: '', token_url: '', userinfo_url: '',
  jwks_uri: '', client_id: '', client_secret: '', scopes: 'openid email profile', pkce_enabled: 'yes', enabled: 'yes', email_optional: 'no',
};

function draftOf(p: CustomProvider): Draft {
  return {
    provider_type: p.provider_type, identifier: p.identifier, name: p.name, issuer: p.issuer ?? '', discovery_url: p.discovery_url ?? '',
    authorization_url: p.authorization_url ?? '', token_url: p.token_url ?? '', userinfo_url: p.userinfo_url ?? '', jwks_uri: p.jwks_uri ?? '',
    client_id: p.client_id ?? '', client_secret: '', scopes: (p.scopes ?? []).join(' '), pkce_enabled: p.pkce_enabled === false ? 'no' : 'yes',
    enabled: p.enabled === false ? 'no' : 'yes', email_optional: p.email_optional ? 'yes' : 'no',
  };
}

/** The request body: only the fields of the provider's type, empty optional ones left out, the secret only when typed. */
function bodyOf(d: Draft, mapping: JsonObject, creating: boolean): Record<string, unknown> {
  const text = (value: string) => (value.trim() ? value.trim() : undefined);
  const urls = d.provider_type === 'oidc'
    ? { issuer: text(d.issuer), discovery_url: text(d.discovery_url) }
    : { authorization_url: text(d.authorization_url), token_url: text(d.token_url), userinfo_url: text(d.userinfo_url), jwks_uri: text(d.jwks_uri) };
  return {
    ...(creating ? { provider_type: d.provider_type, identifier: d.identifier.trim() } : {}),
    name: d.name,
    ...urls,
    client_id: d.client_id,
    ...(d.client_secret ? { client_secret: d.client_secret } : {}),
    scopes: d.scopes.split(/[\s,]+/).filter(Boolean),
    pkce_enabled: d.pkce_enabled === 'yes',
    enabled: d.enabled === 'yes',
    email_optional: d.email_optional === 'yes',
    ...(creating && Object.keys(mapping).length === 0 ? {} : { attribute_mapping: mapping }),
  };
}

const TYPE_NAMES: Record<ProviderType, string> = { oidc: 'OpenID Connect', oauth2: 'OAuth 2.0' };

export function CustomProvidersScreen(props: { api: Api }) {
  const { api } = props;
  const [providers, setProviders] = useState<CustomProvider[] | undefined>();
  const [listError, setListError] = useState<Error | undefined>();
  const [editing, setEditing] = useState<string | undefined>();
  const [deleting, setDeleting] = useState<CustomProvider | undefined>();
  const [status, setStatus] = useState<string | undefined>();
  /** Counts additions: a new form after each one, so nothing typed (the secret least of all) stays in the page. */
  const [added, setAdded] = useState(0);
  const load = useCallback(() => { api<{ providers: CustomProvider[] }>('/admin/custom-providers').then((r) => { setProviders(r.providers); setListError(undefined); }, setListError); }, [api]);
  useEffect(load, [load]);
  const remove = (provider: CustomProvider) => {
    setStatus(undefined);
    api(`/admin/custom-providers/${encodeURIComponent(provider.identifier)}`, { method: 'DELETE' }).then(() => {
      setStatus(`The provider ${provider.identifier} was deleted.`);
      if (editing === provider.identifier) setEditing(undefined);
      load();
    }, setListError);
  };
  return (
    <div className="kz-stack">
      <h1>Custom providers</h1>
      <div aria-live="polite">{status && <Alert kind="success"><p>{status}</p></Alert>}</div>
      <ErrorSummary error={listError} />
      {providers && (
        <div className="kz-table-wrap">
          <table className="kz-table">
            <caption>Custom OAuth and OpenID Connect providers</caption>
            <thead><tr><th scope="col">Identifier</th><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Issuer or authorization URL</th><th scope="col">Client ID</th><th scope="col">Enabled</th><th scope="col">Actions</th></tr></thead>
            <tbody>
              {providers.length === 0 && <tr><td colSpan={7}>No custom provider yet.</td></tr>}
              {providers.map((p) => (
                <tr key={p.id}>
                  <td>{p.identifier}</td><td>{p.name}</td><td>{TYPE_NAMES[p.provider_type] ?? p.provider_type}</td>
                  <td>{p.issuer ?? p.authorization_url ?? '—'}</td><td>{p.client_id ?? '—'}</td><td>{p.enabled === false ? 'no' : 'yes'}</td>
                  <td>
                    <div className="kz-row">
                      <Button variant="secondary" onClick={() => { setStatus(undefined); setEditing(p.identifier); }}>Edit<span className="kz-visually-hidden"> {p.identifier}</span></Button>
                      <Button variant="danger" onClick={() => setDeleting(p)}>Delete<span className="kz-visually-hidden"> {p.identifier}</span></Button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ConfirmDialog
        open={Boolean(deleting)}
        title="Delete this custom provider?"
        confirmLabel="Delete provider"
        danger
        onCancel={() => setDeleting(undefined)}
        onConfirm={() => { const provider = deleting; setDeleting(undefined); if (provider) remove(provider); }}
      >
        <p>{deleting ? `${deleting.identifier}: apps can no longer sign in with it. Accounts that used it stay, with their other sign-in methods.` : ''}</p>
      </ConfirmDialog>
      {editing
        ? <EditCustomProvider key={editing} api={api} identifier={editing} onDone={(message) => { setEditing(undefined); if (message) setStatus(message); load(); }} />
        : <ProviderForm key={added} api={api} onSaved={(p) => { setStatus(`The provider ${p.identifier} was added. Its client secret is stored sealed and is never shown again.`); setAdded((n) => n + 1); load(); }} />}
    </div>
  );
}

/** Reads the provider fresh (GET), then the same form in edit mode. */
function EditCustomProvider(props: { api: Api; identifier: string; onDone(message?: string): void }) {
  const [provider, setProvider] = useState<CustomProvider | undefined>();
  const [error, setError] = useState<Error | undefined>();
  useEffect(() => {
    props.api<CustomProvider>(`/admin/custom-providers/${encodeURIComponent(props.identifier)}`).then(setProvider, setError);
  }, [props.api, props.identifier]);
  if (error) return <Card title={`Edit ${props.identifier}`}><ErrorSummary error={error} /></Card>;
  if (!provider) return <p role="status">Loading the provider…</p>;
  return <ProviderForm api={props.api} existing={provider} onSaved={(p) => props.onDone(`The provider ${p.identifier} was saved.`)} onCancel={() => props.onDone()} />;
}

function ProviderForm(props: { api: Api; existing?: CustomProvider; onSaved(provider: CustomProvider): void; onCancel?(): void }) {
  const { existing } = props;
  const creating = !existing;
  const [form, setForm] = useState<Draft>(() => (existing ? draftOf(existing) : NEW));
  const [mapping, setMapping] = useState<JsonObject | undefined>(existing?.attribute_mapping ?? {});
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);
  const set = (key: keyof Draft) => (event: { target: { value: string } }) => setForm((f) => ({ ...f, [key]: event.target.value }));
  const at = (field: string, also: readonly string[] = []) => errorAt(error, field, also);
  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!mapping) return;
    setBusy(true);
    setError(undefined);
    try {
      const saved = await props.api<CustomProvider>(creating ? '/admin/custom-providers' : `/admin/custom-providers/${encodeURIComponent(existing.identifier)}`, {
        method: creating ? 'POST' : 'PUT',
        body: bodyOf(form, mapping, creating),
      });
      // The secret leaves the page's memory once sent (a new provider's form is replaced by a fresh one).
      if (!creating) setForm((f) => ({ ...f, client_secret: '' }));
      props.onSaved(saved);
    } catch (cause) {
      setError(cause as Error);
    } finally {
      setBusy(false);
    }
  }
  const oidc = form.provider_type === 'oidc';
  const title = creating ? 'Add a provider' : `Edit ${existing.identifier}`;
  return (
    <Card title={title}>
      <form className="kz-stack" onSubmit={submit} aria-label={title}>
        {creating ? (
          <SelectField label="Type" value={form.provider_type} onChange={set('provider_type')} error={at('provider_type')}>
            <option value="oidc">OpenID Connect (discovered from its issuer)</option>
            <option value="oauth2">OAuth 2.0 (its endpoints given here)</option>
          </SelectField>
        ) : <p>Type: {TYPE_NAMES[form.provider_type]} (fixed once created)</p>}
        {creating && <TextField label="Identifier" hint="custom:<name>, as apps pass it to signInWithOAuth" required value={form.identifier} onChange={set('identifier')} error={at('identifier', ['A custom OAuth provider with this identifier'])} />}
        <TextField label="Display name" required value={form.name} onChange={set('name')} error={at('name')} />
        {oidc ? (
          <>
            <TextField label="Issuer" type="url" required value={form.issuer} onChange={set('issuer')} error={at('issuer', ['OIDC discovery'])} />
            <TextField label="Discovery URL" type="url" hint="Only when it is not <issuer>/.well-known/openid-configuration" value={form.discovery_url} onChange={set('discovery_url')} error={at('discovery_url')} />
          </>
        ) : (
          <>
            <TextField label="Authorization URL" type="url" required value={form.authorization_url} onChange={set('authorization_url')} error={at('authorization_url')} />
            <TextField label="Token URL" type="url" required value={form.token_url} onChange={set('token_url')} error={at('token_url')} />
            <TextField label="Userinfo URL" type="url" required value={form.userinfo_url} onChange={set('userinfo_url')} error={at('userinfo_url')} />
            <TextField label="JWKS URI" type="url" hint="Optional: only if the provider also issues signed ID tokens" value={form.jwks_uri} onChange={set('jwks_uri')} error={at('jwks_uri')} />
          </>
        )}
        <TextField label="Client ID" required value={form.client_id} onChange={set('client_id')} error={at('client_id')} />
        <TextField
          label="Client secret" type="password" autoComplete="new-password" required={creating}
          hint={creating ? 'Stored sealed; never shown again' : 'Stored sealed and never shown: leave empty to keep the current one'}
          value={form.client_secret} onChange={set('client_secret')} error={at('client_secret')}
        />
        <TextField label="Scopes" hint="Separated by spaces" value={form.scopes} onChange={set('scopes')} error={at('scopes')} />
        <SelectField label="PKCE" value={form.pkce_enabled} onChange={set('pkce_enabled')}>
          <option value="yes">Used (recommended)</option>
          <option value="no">Not used (the provider does not support it)</option>
        </SelectField>
        <SelectField label="Sign-in with this provider" value={form.enabled} onChange={set('enabled')}>
          <option value="yes">Enabled</option>
          <option value="no">Disabled</option>
        </SelectField>
        <SelectField label="E-mail address" value={form.email_optional} onChange={set('email_optional')}>
          <option value="no">Required from the provider</option>
          <option value="yes">Optional</option>
        </SelectField>
        <JsonField
          label="Attribute mapping" hint={oidc ? 'Claims to user fields; {} for the standard claims' : 'Userinfo fields to user fields, e.g. {"email": "mail"}; {} for the standard names'}
          initial={existing?.attribute_mapping ?? {}} onValid={setMapping} error={at('attribute_mapping', ['Cannot map to protected system field'])}
        />
        <ErrorSummary error={error} />
        <div className="kz-row">
          <Button type="submit" busy={busy} disabled={!mapping}>{creating ? 'Add provider' : 'Save provider'}</Button>
          {props.onCancel && <Button type="button" variant="secondary" onClick={props.onCancel}>Cancel</Button>}
        </div>
      </form>
    </Card>
  );
}
