// SAML identity providers: the list, and a new one from its metadata URL or pasted XML, with its domains and
// attribute mapping (validated JSON).
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { Alert, Button, Card, ErrorSummary, JsonField, SelectField, TextAreaField, TextField, fieldError, type JsonObject } from '@keyzone/ui/browser';
import type { Api } from './session';
import { formatDate } from './users-model';

interface SamlProvider {
  id: string;
  created_at?: string;
  domains?: Array<{ domain: string }>;
  saml?: { entity_id?: string; metadata_url?: string; attribute_mapping?: JsonObject };
}

export function SamlScreen(props: { api: Api }) {
  const { api } = props;
  const [providers, setProviders] = useState<SamlProvider[] | undefined>();
  const [listError, setListError] = useState<Error | undefined>();
  const load = useCallback(() => { api<{ items: SamlProvider[] }>('/admin/sso/providers').then((r) => setProviders(r.items), setListError); }, [api]);
  useEffect(load, [load]);

  return (
    <div className="kz-stack">
      <h1>SSO (SAML) providers</h1>
      <ErrorSummary error={listError} />
      {providers && (
        <div className="kz-table-wrap">
          <table className="kz-table">
            <caption>SAML identity providers</caption>
            <thead><tr><th scope="col">Entity ID</th><th scope="col">Domains</th><th scope="col">Metadata URL</th><th scope="col">Added</th><th scope="col">Test</th></tr></thead>
            <tbody>
              {providers.length === 0 && <tr><td colSpan={5}>No SAML provider yet.</td></tr>}
              {providers.map((p) => (
                <tr key={p.id}>
                  <td>{p.saml?.entity_id ?? p.id}</td>
                  <td>{(p.domains ?? []).map((d) => d.domain).join(', ')}</td>
                  <td>{p.saml?.metadata_url ?? '—'}</td>
                  <td>{formatDate(p.created_at)}</td>
                  <td><TestSignIn api={api} provider={p} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <AddSamlProvider api={api} onAdded={load} />
    </div>
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
          domains: domains.split(/[\s,]+/).filter(Boolean),
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
          ? <TextField label="Metadata URL" type="url" required value={url} onChange={(e) => setUrl(e.target.value)} error={fieldError(error, 'metadata_url')} />
          : <TextAreaField label="Metadata XML" required rows={8} className="kz-mono" value={xml} onChange={(e) => setXml(e.target.value)} error={fieldError(error, 'metadata_xml')} />}
        <TextField label="Domains" hint="Comma-separated: users with these e-mail domains sign in here" value={domains} onChange={(e) => setDomains(e.target.value)} />
        <JsonField label="Attribute mapping" hint='e.g. {"keys": {"email": {"name": "mail"}}}; leave {} for the defaults' initial={{}} onValid={setMapping} />
        <ErrorSummary error={error} />
        {done && <Alert kind="success"><p>{done}</p></Alert>}
        <div className="kz-row"><Button type="submit" busy={busy} disabled={!mapping}>Add provider</Button></div>
      </form>
    </Card>
  );
}
