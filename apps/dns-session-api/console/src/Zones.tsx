// The zones of the signed-in user's group: searched, sorted and paged by the server (GET /zone), so a group with
// 10,000 zones costs one page per view; create, delete and restore.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { Alert, ApiError, Button, Card, ConfirmDialog, ErrorSummary, fieldError, SelectField, TextField } from '@keyzone/ui/browser';
import { api, query, type ListedZone, type Nameserver, type Pagination, type Zone } from './api';
import { navigate } from './router';

const PAGE = 50;

export function Zones(props: { gid?: number }) {
  const [search, setSearch] = useState('');
  const [applied, setApplied] = useState('');
  const [sortBy, setSortBy] = useState('zone');
  const [sortDir, setSortDir] = useState('asc');
  const [deleted, setDeleted] = useState(false);
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<{ zone: ListedZone[]; meta: { pagination: Pagination } } | undefined>();
  const [error, setError] = useState<Error | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  const [confirm, setConfirm] = useState<Zone | undefined>();
  const [reload, setReload] = useState(0);

  // The search goes to the server a moment after typing stops, not on every key.
  useEffect(() => {
    const timer = setTimeout(() => { setApplied(search.trim()); setOffset(0); }, 250);
    return () => clearTimeout(timer);
  }, [search]);

  useEffect(() => {
    const controller = new AbortController();
    api<{ zone: ListedZone[]; meta: { pagination: Pagination } }>(
      `zone?${query({ gid: props.gid, search: applied, sort_by: sortBy, sort_dir: sortDir, deleted: deleted || undefined, limit: PAGE, offset })}`,
      { signal: controller.signal },
    ).then((result) => { setPage(result); setError(undefined); }, (err: Error) => err.name !== 'AbortError' && setError(err));
    return () => controller.abort();
  }, [props.gid, applied, sortBy, sortDir, deleted, offset, reload]);

  async function remove(zone: Zone) {
    try {
      await api(`zone/${zone.id}`, { method: 'DELETE' });
      setNotice(`${zone.zone} was deleted. It can be restored from the deleted zones.`);
      setReload((n) => n + 1);
    } catch (err) {
      setError(err as Error);
    } finally {
      setConfirm(undefined);
    }
  }

  async function restore(zone: Zone) {
    try {
      await api(`zone/${zone.id}`, { method: 'PUT', body: { deleted: false } });
      setNotice(`${zone.zone} was restored.`);
      setReload((n) => n + 1);
    } catch (err) {
      setError(err as Error);
    }
  }

  const pagination = page?.meta.pagination;
  return (
    <div className="kz-stack">
      <h1>Zones</h1>
      {props.gid !== undefined && <p className="kz-row">The zones of group {props.gid}. <a href="#/zones">Your group's zones</a></p>}
      {notice && <Alert kind="success">{notice}</Alert>}
      <ErrorSummary error={error} />
      <div className="dns-toolbar">
        <TextField label="Search zones" type="search" value={search} onChange={(e) => setSearch(e.target.value)} hint="name or description" />
        <SelectField label="Sort by" value={sortBy} onChange={(e) => { setSortBy(e.target.value); setOffset(0); }}>
          <option value="zone">Name</option>
          <option value="description">Description</option>
          <option value="serial">Serial</option>
          <option value="last_modified">Last change</option>
        </SelectField>
        <SelectField label="Order" value={sortDir} onChange={(e) => { setSortDir(e.target.value); setOffset(0); }}>
          <option value="asc">Ascending</option>
          <option value="desc">Descending</option>
        </SelectField>
        <label className="kz-row"><input type="checkbox" checked={deleted} onChange={(e) => { setDeleted(e.target.checked); setOffset(0); }} /> Deleted zones</label>
      </div>
      <div className="kz-table-wrap">
        <table aria-busy={page === undefined || undefined}>
          <caption className="kz-visually-hidden">{deleted ? 'Deleted zones' : 'Zones'}</caption>
          <thead>
            <tr><th scope="col">Zone</th><th scope="col">Description</th><th scope="col">Serial</th><th scope="col">Last change</th><th scope="col"><span className="kz-visually-hidden">Actions</span></th></tr>
          </thead>
          <tbody>
            {page?.zone.map((zone) => (
              <tr key={zone.id}>
                <td>{deleted ? zone.zone : <a href={`#/zones/${zone.id}`}>{zone.zone}</a>}{zone.secondary && <span className="kz-hint" title="Kept as a secondary of an outside primary: its records are read-only"> secondary</span>}</td>
                <td>{zone.description}</td>
                <td>{zone.serial}</td>
                <td>{new Date(zone.last_modified).toLocaleString()}</td>
                <td>
                  {deleted
                    ? <Button variant="secondary" onClick={() => void restore(zone)} aria-label={`Restore ${zone.zone}`}>Restore</Button>
                    : <Button variant="secondary" onClick={() => setConfirm(zone)} aria-label={`Delete ${zone.zone}`}>Delete</Button>}
                </td>
              </tr>
            ))}
            {page && page.zone.length === 0 && <tr><td colSpan={5}>No zones found.</td></tr>}
          </tbody>
        </table>
      </div>
      {pagination && (
        <nav aria-label="Pages" className="kz-row">
          <Button variant="secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>Previous</Button>
          <span>{pagination.filtered === 0 ? 'None' : `${offset + 1}–${Math.min(offset + PAGE, pagination.filtered)} of ${pagination.filtered}`}</span>
          <Button variant="secondary" disabled={offset + PAGE >= pagination.filtered} onClick={() => setOffset(offset + PAGE)}>Next</Button>
        </nav>
      )}
      <CreateZone gid={props.gid} onCreated={(zone) => navigate(`/zones/${zone.id}`)} />
      <ConfirmDialog open={confirm !== undefined} title={`Delete ${confirm?.zone ?? ''}?`} confirmLabel="Delete zone" danger
        onConfirm={() => confirm && void remove(confirm)} onCancel={() => setConfirm(undefined)}>
        <p>The zone stops being published. It can be restored afterwards.</p>
      </ConfirmDialog>
    </div>
  );
}

function CreateZone(props: { gid?: number; onCreated(zone: Zone): void }) {
  const [nameservers, setNameservers] = useState<Nameserver[]>([]);
  const [form, setForm] = useState({ zone: '', description: '', ttl: '3600', minimum: '3600', mailaddr: '' });
  const [chosen, setChosen] = useState<number[]>([]);
  const [dnssec, setDnssec] = useState(false);
  const [error, setError] = useState<ApiError | Error | undefined>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    api<{ nameserver: Nameserver[] }>('nameserver').then((r) => setNameservers(r.nameserver), () => setNameservers([]));
  }, []);
  const set = useCallback((key: keyof typeof form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [key]: e.target.value })), []);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const body: Record<string, unknown> = { zone: form.zone.trim(), nameservers: chosen };
      // Unticked, the zone takes its group's dnssec_default.
      if (dnssec) body.dnssec = true;
      if (props.gid !== undefined) body.gid = props.gid;
      if (form.description) body.description = form.description;
      if (form.mailaddr) body.mailaddr = form.mailaddr;
      if (form.ttl) body.ttl = Number(form.ttl);
      if (form.minimum) body.minimum = Number(form.minimum);
      const { zone } = await api<{ zone: Zone }>('zone', { body });
      props.onCreated(zone);
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card title="New zone">
      <form className="kz-stack" onSubmit={(e) => void submit(e)} noValidate>
        <ErrorSummary error={error} title="The zone was not created" />
        <TextField label="Zone name" name="zone" required value={form.zone} onChange={set('zone')} hint="e.g. example.com" error={fieldError(error, 'zone')} />
        <TextField label="Description" value={form.description} onChange={set('description')} error={fieldError(error, 'description')} />
        <div className="dns-inline">
          <TextField label="Default TTL" inputMode="numeric" value={form.ttl} onChange={set('ttl')} error={fieldError(error, 'ttl')} />
          <TextField label="Negative TTL (SOA minimum)" inputMode="numeric" value={form.minimum} onChange={set('minimum')} error={fieldError(error, 'minimum')} />
          <TextField label="Hostmaster mailbox" value={form.mailaddr} onChange={set('mailaddr')} hint="default hostmaster@zone" error={fieldError(error, 'mailaddr')} />
        </div>
        <fieldset>
          <legend>Nameservers</legend>
          {nameservers.length === 0 && <p className="kz-hint">No nameservers are available to your group; the zone is kept but not published.</p>}
          {nameservers.map((ns) => (
            <label key={ns.id} className="kz-row">
              <input type="checkbox" checked={chosen.includes(ns.id)}
                onChange={(e) => setChosen((c) => (e.target.checked ? [...c, ns.id] : c.filter((id) => id !== ns.id)))} />
              {ns.name}
            </label>
          ))}
        </fieldset>
        <label className="kz-row"><input type="checkbox" checked={dnssec} onChange={(e) => setDnssec(e.target.checked)} /> Sign with DNSSEC (unticked: as the group's default)</label>
        <Button type="submit" busy={busy}>Create zone</Button>
      </form>
    </Card>
  );
}
