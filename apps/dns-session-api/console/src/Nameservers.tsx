// The nameservers the user's group may use, each with how publishing to it goes (GET /nameserver/<id>/status):
// jobs queued, the last success, the last error, the zones that keep failing. Those who may create nameservers
// (administrators) add them here; the API refuses the others, and the console shows its answer.
import { useEffect, useState, type FormEvent } from 'react';
import { ApiError, Button, Card, ErrorSummary, fieldError, SelectField, StatusMessage, TextField } from '@keyzone/ui/browser';
import { api } from './api';

interface Nameserver {
  id: number;
  name: string;
  address: string | null;
  address6: string | null;
  ttl: number;
  description: string;
  export: { type: string };
}

interface PublishStatus {
  queued: number;
  last_success_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
  next_attempt_at: string | null;
  not_published: string | null;
  failing_zones: Array<{ zone_id: number; zone: string | null; attempts: number; last_error: string | null; next_attempt_at: string | null }>;
}

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'never');

export function Nameservers() {
  const [rows, setRows] = useState<Array<{ ns: Nameserver; status?: PublishStatus; error?: string }> | undefined>();
  const [error, setError] = useState<Error | undefined>();
  const [reload, setReload] = useState(0);

  useEffect(() => {
    let live = true;
    (async () => {
      const { nameserver } = await api<{ nameserver: Nameserver[] }>('nameserver');
      const loaded = await Promise.all(nameserver.map(async (ns) => {
        try {
          return { ns, status: (await api<{ status: PublishStatus }>(`nameserver/${ns.id}/status`)).status };
        } catch (err) {
          return { ns, error: (err as Error).message };
        }
      }));
      if (live) setRows(loaded);
    })().catch((err: Error) => live && setError(err));
    return () => { live = false; };
  }, [reload]);

  return (
    <div className="kz-stack">
      <div className="dns-toolbar">
        <h1>Nameservers and publishing</h1>
        <Button variant="secondary" onClick={() => setReload((n) => n + 1)}>Refresh</Button>
      </div>
      <ErrorSummary error={error} />
      {rows === undefined && !error && <p role="status">Loading…</p>}
      {rows?.length === 0 && <p>No nameservers yet.</p>}
      {rows?.map(({ ns, status, error: statusError }) => (
        <section key={ns.id} className="kz-card kz-stack" aria-labelledby={`ns-${ns.id}`}>
          <h2 id={`ns-${ns.id}`}>{ns.name}</h2>
          <p className="kz-hint">{ns.export.type}{ns.address ? ` · ${ns.address}` : ''}{ns.address6 ? ` · ${ns.address6}` : ''} · TTL {ns.ttl}</p>
          {statusError && <p>{statusError}</p>}
          {status && (
            <dl className="dns-status" data-testid={`status-${ns.name}`}>
              <dt>State</dt>
              <dd>{status.not_published ? `Not published: ${status.not_published}` : status.last_error && (!status.last_success_at || (status.last_error_at ?? '') > status.last_success_at) ? 'Failing' : status.queued > 0 ? 'Publishing' : status.last_success_at ? 'Up to date' : 'Nothing published yet'}</dd>
              <dt>Queued changes</dt><dd>{status.queued}</dd>
              <dt>Last success</dt><dd>{when(status.last_success_at)}</dd>
              <dt>Last error</dt><dd>{status.last_error ? `${status.last_error} (${when(status.last_error_at)})` : 'none'}</dd>
              {status.next_attempt_at && <><dt>Next try</dt><dd>{when(status.next_attempt_at)}</dd></>}
            </dl>
          )}
          {status && status.failing_zones.length > 0 && (
            <div className="kz-table-wrap">
              <table>
                <caption>Zones that keep failing</caption>
                <thead><tr><th scope="col">Zone</th><th scope="col">Attempts</th><th scope="col">Error</th><th scope="col">Next try</th></tr></thead>
                <tbody>
                  {status.failing_zones.map((z) => (
                    <tr key={z.zone_id}><td><a href={`#/zones/${z.zone_id}`}>{z.zone ?? z.zone_id}</a></td><td>{z.attempts}</td><td>{z.last_error}</td><td>{when(z.next_attempt_at)}</td></tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      ))}
      <AddNameserver onAdded={() => setReload((n) => n + 1)} />
    </div>
  );
}

function AddNameserver(props: { onAdded(): void }) {
  const [form, setForm] = useState({ name: '', address: '', address6: '', ttl: '', type: 'powerdns' });
  const [error, setError] = useState<ApiError | Error | undefined>();
  const [status, setStatus] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [key]: e.target.value }));

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const body: Record<string, unknown> = { name: form.name, export: { type: form.type } };
      if (form.address) body.address = form.address;
      if (form.address6) body.address6 = form.address6;
      if (form.ttl) body.ttl = /^\d+$/.test(form.ttl) ? Number(form.ttl) : form.ttl;
      await api('nameserver', { body });
      setStatus(`${form.name} added.`);
      setForm({ name: '', address: '', address6: '', ttl: '', type: form.type });
      props.onAdded();
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card title="Add a nameserver">
      <form className="kz-stack" onSubmit={(e) => void submit(e)} noValidate>
        <StatusMessage>{status}</StatusMessage>
        <ErrorSummary error={error} title="The nameserver was not added" />
        <div className="dns-inline">
          <TextField label="Host name" value={form.name} onChange={set('name')} hint="e.g. ns1.example.net" error={fieldError(error, 'name')} />
          <TextField label="IPv4 address" value={form.address} onChange={set('address')} error={fieldError(error, 'address')} />
          <TextField label="IPv6 address" value={form.address6} onChange={set('address6')} error={fieldError(error, 'address6')} />
          <TextField label="TTL" inputMode="numeric" value={form.ttl} onChange={set('ttl')} error={fieldError(error, 'ttl')} />
          <SelectField label="Published as" value={form.type} onChange={set('type')}>
            {['powerdns', 'bind', 'nsd', 'knot', 'tinydns'].map((t) => <option key={t}>{t}</option>)}
          </SelectField>
        </div>
        <div><Button type="submit" busy={busy}>Add nameserver</Button></div>
      </form>
    </Card>
  );
}
