// SAML identity providers: the list; a new one from its metadata URL or pasted XML, with its domains and attribute
// mapping (validated JSON); edit one (domains, mapping, NameID format, disabled, new metadata) or delete it.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { Alert, Button, Card, ConfirmDialog, ErrorSummary, JsonField, SelectField, TextAreaField, TextField, type JsonObject } from '@keyzone/ui/browser';
import { errorAt } from './field-errors';
import type { Api } from './session';
import { formatDate } from './users-model';

interface SamlProvider {
  id: string;
  created_at?: string;
  disabled?: boolean;
  domains?: Array<{ domain: string }>;
  saml?: { entity_id?: string; metadata_url?: string; attribute_mapping?: JsonObject; name_id_format?: string };
}

const NAME_ID_FORMATS = [
  ['', 'Unspecified (the identity provider chooses)'],
  ['urn:oasis:names:tc:SAML:2.0:nameid-format:persistent', 'Persistent'],
  ['urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress', 'E-mail address'],
  ['urn:oasis:names:tc:SAML:2.0:nameid-format:transient', 'Transient'],
] as const;

const nameOf = (p: SamlProvider) => p.saml?.entity_id ?? p.id;
const domainList = (text: string) => text.split(/[\s,]+/).filter(Boolean);

export function SamlScreen(props: { api: Api }) {
  const { api } = props;
  const [providers, setProviders] = useState<SamlProvider[] | undefined>();
  const [listError, setListError] = useState<Error | undefined>();
  const [editing, setEditing] = useState<string | undefined>();
  const [deleting, setDeleting] = useState<SamlProvider | undefined>();
  const [status, setStatus] = useState<string | undefined>();
  const load = useCallback(() => { api<{ items: SamlProvider[] }>('/admin/sso/providers').then((r) => { setProviders(r.items); setListError(undefined); }, setListError); }, [api]);
  useEffect(load, [load]);
  const remove = (provider: SamlProvider) => {
    setStatus(undefined);
    api(`/admin/sso/providers/${encodeURIComponent(provider.id)}`, { method: 'DELETE' }).then(() => {
      setStatus(`The provider ${nameOf(provider)} was deleted: its users can no longer sign in through it.`);
      if (editing === provider.id) setEditing(undefined);
      load();
    }, setListError);
  };

  return (
    <div className="kz-stack">
      <h1>SSO (SAML) providers</h1>
      <div aria-live="polite">{status && <Alert kind="success"><p>{status}</p></Alert>}</div>
      <ErrorSummary error={listError} />
      {providers && (
        <div className="kz-table-wrap">
          <table className="kz-table">
            <caption>SAML identity providers</caption>
            <thead><tr><th scope="col">Entity ID</th><th scope="col">Domains</th><th scope="col">Metadata URL</th><th scope="col">Added</th><th scope="col">Actions</th></tr></thead>
            <tbody>
              {providers.length === 0 && <tr><td colSpan={5}>No SAML provider yet.</td></tr>}
              {providers.map((p) => (
                <tr key={p.id}>
                  <td>{nameOf(p)}{p.disabled ? ' (disabled)' : ''}</td>
                  <td>{(p.domains ?? []).map((d) => d.domain).join(', ')}</td>
                  <td>{p.saml?.metadata_url ?? '—'}</td>
                  <td>{formatDate(p.created_at)}</td>
                  <td>
                    <div className="kz-row">
                      <TestSignIn api={api} provider={p} />
                      <Button variant="secondary" onClick={() => { setStatus(undefined); setEditing(p.id); }}>Edit<span className="kz-visually-hidden"> {nameOf(p)}</span></Button>
                      <Button variant="danger" onClick={() => setDeleting(p)}>Delete<span className="kz-visually-hidden"> {nameOf(p)}</span></Button>
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
        title="Delete this SAML provider?"
        confirmLabel="Delete provider"
        danger
        onCancel={() => setDeleting(undefined)}
        onConfirm={() => { const provider = deleting; setDeleting(undefined); if (provider) remove(provider); }}
      >
        <p>{deleting ? `${nameOf(deleting)}: users of its domains can no longer sign in through it. Their accounts stay.` : ''}</p>
      </ConfirmDialog>
      {editing
        ? <EditSamlProvider key={editing} api={api} id={editing} onDone={(message) => { setEditing(undefined); if (message) setStatus(message); load(); }} />
        : <AddSamlProvider api={api} onAdded={load} />}
    </div>
  );
}

/**
 * Edits what GoTrue's PUT /admin/sso/providers/<id> takes: domains, attribute mapping, the NameID format, disabled,
 * and new metadata (from its URL again, or pasted; the server refuses one of another entity ID). Read fresh from
 * GET first, so nothing another admin changed meanwhile is written back unseen.
 */
function EditSamlProvider(props: { api: Api; id: string; onDone(message?: string): void }) {
  const { api, id } = props;
  const [provider, setProvider] = useState<SamlProvider | undefined>();
  const [loadError, setLoadError] = useState<Error | undefined>();
  const [domains, setDomains] = useState('');
  const [mapping, setMapping] = useState<JsonObject | undefined>({});
  const [nameIdFormat, setNameIdFormat] = useState('');
  const [enabled, setEnabled] = useState('yes');
  const [metadata, setMetadata] = useState<'keep' | 'url' | 'xml'>('keep');
  const [url, setUrl] = useState('');
  const [xml, setXml] = useState('');
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    api<SamlProvider>(`/admin/sso/providers/${encodeURIComponent(id)}`).then((p) => {
      setProvider(p);
      setDomains((p.domains ?? []).map((d) => d.domain).join(', '));
      setMapping(p.saml?.attribute_mapping ?? {});
      setNameIdFormat(p.saml?.name_id_format ?? '');
      setEnabled(p.disabled ? 'no' : 'yes');
      setUrl(p.saml?.metadata_url ?? '');
    }, setLoadError);
  }, [api, id]);
  if (loadError) return <Card title="Edit a SAML provider"><ErrorSummary error={loadError} /></Card>;
  if (!provider) return <p role="status">Loading the provider…</p>;
  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!mapping) return;
    setBusy(true);
    setError(undefined);
    try {
      await api(`/admin/sso/providers/${encodeURIComponent(id)}`, {
        method: 'PUT',
        body: {
          domains: domainList(domains),
          attribute_mapping: mapping,
          name_id_format: nameIdFormat,
          disabled: enabled === 'no',
          ...(metadata === 'url' ? { metadata_url: url } : metadata === 'xml' ? { metadata_xml: xml } : {}),
        },
      });
      props.onDone(`The provider ${nameOf(provider!)} was saved.`);
    } catch (cause) {
      setError(cause as Error);
    } finally {
      setBusy(false);
    }
  }
  return (
    <Card title={`Edit ${nameOf(provider)}`}>
      <form className="kz-stack" onSubmit={submit}>
        <TextField label="Domains" hint="Comma-separated: users with these e-mail domains sign in here" value={domains} onChange={(e) => setDomains(e.target.value)} error={errorAt(error, 'domains')} />
        <JsonField label="Attribute mapping" hint='e.g. {"keys": {"email": {"name": "mail"}}}' initial={provider.saml?.attribute_mapping ?? {}} onValid={setMapping} error={errorAt(error, 'attribute_mapping')} />
        <SelectField label="NameID format" value={nameIdFormat} onChange={(e) => setNameIdFormat(e.target.value)} error={errorAt(error, 'name_id_format')}>
          {NAME_ID_FORMATS.map(([value, text]) => <option key={value} value={value}>{text}</option>)}
        </SelectField>
        <SelectField label="Sign-in through this provider" value={enabled} onChange={(e) => setEnabled(e.target.value)}>
          <option value="yes">Enabled</option>
          <option value="no">Disabled</option>
        </SelectField>
        <SelectField label="Metadata" value={metadata} onChange={(e) => setMetadata(e.target.value as 'keep' | 'url' | 'xml')} error={errorAt(error, 'metadata', ['Updating a SAML provider with a different EntityID'])}>
          <option value="keep">Keep the current metadata</option>
          <option value="url">Read it from a URL</option>
          <option value="xml">Paste new XML</option>
        </SelectField>
        {metadata === 'url' && <TextField label="Metadata URL" type="url" required value={url} onChange={(e) => setUrl(e.target.value)} error={errorAt(error, 'metadata_url')} />}
        {metadata === 'xml' && <TextAreaField label="Metadata XML" required rows={8} className="kz-mono" value={xml} onChange={(e) => setXml(e.target.value)} error={errorAt(error, 'metadata_xml')} />}
        <ErrorSummary error={error} />
        <div className="kz-row">
          <Button type="submit" busy={busy} disabled={!mapping}>Save provider</Button>
          <Button type="button" variant="secondary" onClick={() => props.onDone()}>Cancel</Button>
        </div>
      </form>
    </Card>
  );
}

/**
 * A test sign-in: the identity provider's sign-in address for this provider (POST /sso), opened in a new tab. The
 * result lands where any SSO sign-in does (SITE_URL), in that tab; this console's session is not touched.
 */
function TestSignIn(props: { api: Api; provider: SamlProvider }) {
  const [url, setUrl] = useState<string | undefined>();
  const [error, setError] = useState<Error | undefined>();
  const name = props.provider.saml?.entity_id ?? props.provider.id;
  if (url) return <a href={url} target="_blank" rel="noopener noreferrer">Open the sign-in of {name}</a>;
  return (
    <>
      <Button variant="secondary" onClick={() => {
        props.api<{ url: string }>('/sso', { body: { provider_id: props.provider.id, skip_http_redirect: true } }).then((r) => setUrl(r.url), setError);
      }}>Test sign-in<span className="kz-visually-hidden"> with {name}</span></Button>
      {error && <span className="kz-field-error">{error.message}</span>}
    </>
  );
}

function AddSamlProvider(props: { api: Api; onAdded(): void }) {
  const [source, setSource] = useState<'url' | 'xml'>('url');
  const [url, setUrl] = useState('');
  const [xml, setXml] = useState('');
  const [domains, setDomains] = useState('');
  const [mapping, setMapping] = useState<JsonObject | undefined>({});
  const [error, setError] = useState<Error | undefined>();
  const [done, setDone] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!mapping) return;
    setBusy(true);
    setError(undefined);
    setDone(undefined);
    try {
      const created = await props.api<SamlProvider>('/admin/sso/providers', {
        body: {
          type: 'saml',
          ...(source === 'url' ? { metadata_url: url } : { metadata_xml: xml }),
          domains: domainList(domains),
          ...(Object.keys(mapping).length > 0 ? { attribute_mapping: mapping } : {}),
        },
      });
      setDone(`The provider ${created.saml?.entity_id ?? created.id} was added.`);
      props.onAdded();
    } catch (cause) {
      setError(cause as Error);
    } finally {
      setBusy(false);
    }
  }
  return (
    <Card title="Add a SAML provider">
      <form className="kz-stack" onSubmit={submit}>
        <SelectField label="Metadata from" value={source} onChange={(e) => setSource(e.target.value as 'url' | 'xml')}>
          <option value="url">A metadata URL</option>
          <option value="xml">Pasted XML</option>
        </SelectField>
        {source === 'url'
          ? <TextField label="Metadata URL" type="url" required value={url} onChange={(e) => setUrl(e.target.value)} error={errorAt(error, 'metadata_url')} />
          : <TextAreaField label="Metadata XML" required rows={8} className="kz-mono" value={xml} onChange={(e) => setXml(e.target.value)} error={errorAt(error, 'metadata_xml')} />}
        <TextField label="Domains" hint="Comma-separated: users with these e-mail domains sign in here" value={domains} onChange={(e) => setDomains(e.target.value)} error={errorAt(error, 'domains')} />
        <JsonField label="Attribute mapping" hint='e.g. {"keys": {"email": {"name": "mail"}}}; leave {} for the defaults' initial={{}} onValid={setMapping} error={errorAt(error, 'attribute_mapping')} />
        <ErrorSummary error={error} />
        {done && <Alert kind="success"><p>{done}</p></Alert>}
        <div className="kz-row"><Button type="submit" busy={busy} disabled={!mapping}>Add provider</Button></div>
      </form>
    </Card>
  );
}
