// The nameservers the user's group may use, each with how publishing to it goes (GET /nameserver/<id>/status):
// jobs queued, the last success, the last error, the zones that keep failing; "Publish now" queues all its zones
// again (POST /nameserver/<id>/publish) and shows the queue until it drains. Those who may change nameservers
// (administrators) add, edit and delete them here; the API refuses the others, and the console shows its answer.
import { useEffect, useState, type FormEvent } from 'react';
import { ApiError, Button, Card, ConfirmDialog, ErrorSummary, fieldError, SelectField, StatusMessage, TextField } from '@keyzone/ui/browser';
import { api, publishNameserverNow, type PublishStatus } from './api';

interface Nameserver {
  id: number;
  gid: number;
  name: string;
  address: string | null;
  address6: string | null;
  ttl: number;
  description: string;
  export: { type: string };
}

const EXPORT_TYPES = ['powerdns', 'bind', 'nsd', 'knot', 'tinydns'];
// After "Publish now" the status is read again this often while jobs remain, this many times at most.
const WATCH_MS = 1500;
const WATCH_TIMES = 40;

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'never');

function stateOf(status: PublishStatus): string {
  if (status.not_published) return `Not published: ${status.not_published}`;
  if (status.last_error && (!status.last_success_at || (status.last_error_at ?? '') > status.last_success_at)) return 'Failing';
  if (status.queued > 0) return 'Publishing';
  return status.last_success_at ? 'Up to date' : 'Nothing published yet';
}

export function Nameservers() {
  const [rows, setRows] = useState<Array<{ ns: Nameserver; status?: PublishStatus; error?: string }> | undefined>();
  const [error, setError] = useState<Error | undefined>();
  const [reload, setReload] = useState(0);
  // One dialog for the screen (its title's id is fixed): the nameserver being deleted, and why a delete failed.
  const [removing, setRemoving] = useState<Nameserver | undefined>();
  const [deleting, setDeleting] = useState(false);
  const [deleteError, setDeleteError] = useState<Error | undefined>();
  const [deleted, setDeleted] = useState<string | undefined>();

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

  const again = () => setReload((n) => n + 1);

  async function remove(ns: Nameserver) {
    setDeleting(true);
    setDeleteError(undefined);
    setDeleted(undefined);
    try {
      await api(`nameserver/${ns.id}`, { method: 'DELETE' });
      setDeleted(`${ns.name} deleted.`);
      again();
    } catch (err) {
      setDeleteError(err as Error);
    } finally {
      setDeleting(false);
      setRemoving(undefined);
    }
  }

  return (
    <div className="kz-stack">
      <div className="dns-toolbar">
        <h1>Nameservers and publishing</h1>
        <Button variant="secondary" onClick={again}>Refresh</Button>
      </div>
      <ErrorSummary error={error} />
      <StatusMessage>{deleted}</StatusMessage>
      <ErrorSummary error={deleteError} title="The nameserver was not deleted" />
      {rows === undefined && !error && <p role="status">Loading…</p>}
      {rows?.length === 0 && <p>No nameservers yet.</p>}
      {rows?.map(({ ns, status, error: statusError }) => (
        <NameserverCard key={`${ns.id}:${reload}`} ns={ns} status={status} statusError={statusError} onDelete={() => { setDeleted(undefined); setRemoving(ns); }} />
      ))}
      <AddNameserver onAdded={again} />
      <ConfirmDialog open={removing !== undefined} title={`Delete ${removing?.name ?? ''}?`} confirmLabel="Delete nameserver" danger busy={deleting}
        onConfirm={() => removing && void remove(removing)} onCancel={() => setRemoving(undefined)}>
        <p>It is refused while a zone still uses it. A deleted nameserver can be restored through the API.</p>
      </ConfirmDialog>
    </div>
  );
}

/** One nameserver: its publishing state, "Publish now", its edit form (keyed by each reload) and a delete button. */
function NameserverCard(props: { ns: Nameserver; status?: PublishStatus; statusError?: string; onDelete(): void }) {
  const [ns, setNs] = useState(props.ns);
  const [status, setStatus] = useState(props.status);
  const [editing, setEditing] = useState(false);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | undefined>();
  const [error, setError] = useState<ApiError | Error | undefined>();
  const [watching, setWatching] = useState(0);

  // While the jobs "Publish now" queued remain, the status is read again, so the state changes on screen.
  useEffect(() => {
    if (watching === 0 || (status && status.queued === 0)) return;
    const timer = setTimeout(() => {
      api<{ status: PublishStatus }>(`nameserver/${ns.id}/status`)
        .then((r) => { setStatus(r.status); setWatching((n) => (n >= WATCH_TIMES ? 0 : n + 1)); }, () => setWatching(0));
    }, WATCH_MS);
    return () => clearTimeout(timer);
  }, [watching, status, ns.id]);

  async function publishNow() {
    setBusy(true);
    setError(undefined);
    setMessage(undefined);
    try {
      const reply = await publishNameserverNow(ns.id);
      setStatus(reply.status);
      setMessage(`${reply.message[0]?.toUpperCase() ?? ''}${reply.message.slice(1)}.`);
      setWatching(1);
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  }

  function saved(next: Nameserver, note: string) {
    setNs(next);
    setEditing(false);
    setMessage(note);
    setError(undefined);
    // A new name or type can change whether and how it is published.
    api<{ status: PublishStatus }>(`nameserver/${next.id}/status`).then((r) => setStatus(r.status), (err: Error) => setError(err));
  }

  const headingId = `ns-${ns.id}`;
  return (
    <section className="kz-card kz-stack" aria-labelledby={headingId} data-testid={`nameserver-${ns.id}`}>
      <h2 id={headingId}>{ns.name}</h2>
      <p className="kz-hint">{ns.export.type}{ns.address ? ` · ${ns.address}` : ''}{ns.address6 ? ` · ${ns.address6}` : ''} · TTL {ns.ttl}{ns.description ? ` · ${ns.description}` : ''}</p>
      {props.statusError && <p>{props.statusError}</p>}
      <StatusMessage>{message}</StatusMessage>
      <ErrorSummary error={error} />
      {status && (
        <dl className="dns-status" data-testid={`status-${ns.name}`}>
          <dt>State</dt>
          <dd>{stateOf(status)}</dd>
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
      {editing ? (
        <EditNameserver ns={ns} onCancel={() => setEditing(false)} onSaved={saved} />
      ) : (
        <div className="kz-row">
          <Button variant="secondary" aria-label={`Publish now ${ns.name}`} busy={busy} disabled={busy || Boolean(status?.not_published)} onClick={() => void publishNow()}>Publish now</Button>
          <Button variant="secondary" aria-label={`Edit ${ns.name}`} onClick={() => { setEditing(true); setMessage(undefined); }}>Edit</Button>
          <Button variant="danger" aria-label={`Delete ${ns.name}`} onClick={props.onDelete}>Delete</Button>
        </div>
      )}
    </section>
  );
}

/** The fields PUT /nameserver/<id> takes; only those changed are sent (a change advances its zones' serials). */
function EditNameserver(props: { ns: Nameserver; onSaved(ns: Nameserver, note: string): void; onCancel(): void }) {
  const { ns } = props;
  const initial = {
    name: ns.name, address: ns.address ?? '', address6: ns.address6 ?? '', ttl: String(ns.ttl), description: ns.description,
    type: ns.export.type, gid: String(ns.gid),
  };
  const [form, setForm] = useState(initial);
  const [error, setError] = useState<ApiError | Error | undefined>();
  const [busy, setBusy] = useState(false);
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [key]: e.target.value }));

  async function submit(event: FormEvent) {
    event.preventDefault();
    const body: Record<string, unknown> = {};
    if (form.name !== initial.name) body.name = form.name;
    if (form.address !== initial.address) body.address = form.address === '' ? null : form.address;
    if (form.address6 !== initial.address6) body.address6 = form.address6 === '' ? null : form.address6;
    if (form.ttl !== initial.ttl) body.ttl = /^\d+$/.test(form.ttl) ? Number(form.ttl) : form.ttl;
    if (form.description !== initial.description) body.description = form.description;
    if (form.type !== initial.type) body.export = { type: form.type };
    if (form.gid !== initial.gid) body.gid = /^\d+$/.test(form.gid) ? Number(form.gid) : form.gid;
    if (Object.keys(body).length === 0) {
      props.onSaved(ns, 'Nothing changed.');
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const { nameserver } = await api<{ nameserver: Nameserver }>(`nameserver/${ns.id}`, { method: 'PUT', body });
      props.onSaved(nameserver, `${nameserver.name} saved.`);
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="kz-stack" aria-label={`Edit ${ns.name}`} onSubmit={(e) => void submit(e)} noValidate>
      <ErrorSummary error={error} title="The nameserver was not saved" />
      <div className="dns-inline">
        <TextField label="Host name" value={form.name} onChange={set('name')} error={fieldError(error, 'name')} />
        <TextField label="IPv4 address" value={form.address} onChange={set('address')} error={fieldError(error, 'address')} />
        <TextField label="IPv6 address" value={form.address6} onChange={set('address6')} error={fieldError(error, 'address6')} />
        <TextField label="TTL" inputMode="numeric" value={form.ttl} onChange={set('ttl')} error={fieldError(error, 'ttl')} />
        <TextField label="Description" value={form.description} onChange={set('description')} error={fieldError(error, 'description')} />
        <SelectField label="Published as" value={form.type} onChange={set('type')} error={fieldError(error, 'export')}>
          {EXPORT_TYPES.map((t) => <option key={t}>{t}</option>)}
        </SelectField>
        <TextField label="Group id" inputMode="numeric" value={form.gid} onChange={set('gid')} hint="moves it to another group" error={fieldError(error, 'gid')} />
      </div>
      <div className="kz-row">
        <Button type="submit" busy={busy}>Save</Button>
        <Button variant="secondary" onClick={props.onCancel}>Cancel</Button>
      </div>
    </form>
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
            {EXPORT_TYPES.map((t) => <option key={t}>{t}</option>)}
          </SelectField>
        </div>
        <div><Button type="submit" busy={busy}>Add nameserver</Button></div>
      </form>
    </Card>
  );
}
