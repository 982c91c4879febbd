// One zone: its records grouped by name and type (add, edit and delete inline, bulk delete and TTL change, an
// instant filter), its SOA settings, its history, and the export. Every record is loaded once (1,000 a request),
// so filtering a 5,000-record zone happens in memory on each key press without a request.
import { memo, useCallback, useDeferredValue, useEffect, useMemo, useState, type FormEvent } from 'react';
import { ApiError, Button, Card, ConfirmDialog, ErrorSummary, fieldError, SelectField, StatusMessage, Tabs, TextField } from '@keyzone/ui/browser';
import { api, query, type Pagination, type Zone, type ZoneRecord } from './api';
import { dataFields, rdataText, relativeOwner, toBody, TYPE_FIELDS } from './records';
import { History } from './History';
import { Dnssec } from './Dnssec';
import { PublishZoneNow } from './PublishZone';
import { loadSecondary, SecondaryPanel, type Secondary } from './SecondaryZone';

const PAGE = 1000;
// Rows drawn before "Show all": enough to scroll, few enough that each filter key press redraws at once.
const SHOWN = 300;

async function loadAllRecords(zoneId: number, signal: AbortSignal): Promise<ZoneRecord[]> {
  const all: ZoneRecord[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await api<{ zone_record: ZoneRecord[]; meta: { pagination: Pagination } }>(
      `zone/${zoneId}/records?${query({ limit: PAGE, offset })}`, { signal });
    all.push(...page.zone_record);
    if (page.zone_record.length < PAGE || all.length >= page.meta.pagination.filtered) return all;
  }
}

export function ZoneView(props: { zoneId: number }) {
  const [zone, setZone] = useState<Zone | undefined>();
  const [records, setRecords] = useState<ZoneRecord[] | undefined>();
  // null: a primary zone of Keyzone's; undefined: not loaded yet.
  const [secondary, setSecondary] = useState<Secondary | null | undefined>();
  const [error, setError] = useState<Error | undefined>();
  const [tab, setTab] = useState('records');
  const [reload, setReload] = useState(0);
  const refresh = useCallback(() => setReload((n) => n + 1), []);

  useEffect(() => {
    const controller = new AbortController();
    Promise.all([
      api<{ zone: Zone }>(`zone/${props.zoneId}`, { signal: controller.signal }),
      loadAllRecords(props.zoneId, controller.signal),
      loadSecondary(props.zoneId, controller.signal),
    ]).then(([z, r, s]) => { setZone(z.zone); setRecords(r); setSecondary(s); setError(undefined); }, (err: Error) => err.name !== 'AbortError' && setError(err));
    return () => controller.abort();
  }, [props.zoneId, reload]);

  if (!zone || !records || secondary === undefined) {
    return error ? <ErrorSummary error={error} /> : <p role="status">Loading the zone…</p>;
  }
  return (
    <div className="kz-stack">
      <div className="dns-toolbar">
        <h1>{zone.zone}</h1>
        <div className="kz-row">
          <a className="kz-button kz-secondary" href={`zone/${zone.id}/export`} download>Export zone file</a>
          <a href="#/zones">All zones</a>
        </div>
      </div>
      <PublishZoneNow zoneId={zone.id} />
      {secondary && <SecondaryPanel zone={zone} secondary={secondary} onConverted={refresh} onReload={refresh} />}
      <ErrorSummary error={error} />
      <Tabs label="Zone" selected={tab} onSelect={setTab} tabs={[{ id: 'records', label: `Records (${records.length})` }, { id: 'settings', label: 'SOA settings' }, { id: 'history', label: 'History' }, { id: 'dnssec', label: 'DNSSEC' }]}>
        {tab === 'records' && <Records zone={zone} records={records} readOnly={secondary !== null} onChanged={refresh} />}
        {tab === 'settings' && (secondary
          ? <p>The SOA settings are the primary's ({secondary.primary.address}): they change there and arrive with the next transfer.</p>
          : <SoaSettings zone={zone} onSaved={(z) => setZone(z)} />)}
        {tab === 'history' && <History zone={zone} onRestored={refresh} />}
        {tab === 'dnssec' && <Dnssec zone={zone} onChanged={(z) => setZone(z)} />}
      </Tabs>
    </div>
  );
}

function Records(props: { zone: Zone; records: ZoneRecord[]; readOnly: boolean; onChanged(): void }) {
  const { zone, records, readOnly } = props;
  const [filter, setFilter] = useState('');
  const deferred = useDeferredValue(filter);
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [editing, setEditing] = useState<number | undefined>();
  const [showAll, setShowAll] = useState(false);
  const [status, setStatus] = useState<string | undefined>();
  const [error, setError] = useState<Error | undefined>();
  const [bulkTtl, setBulkTtl] = useState('');
  const [confirmBulk, setConfirmBulk] = useState(false);
  const [busy, setBusy] = useState(false);

  // Sorted once per load, each record with its text to search in lower case, so a key press in the filter is one
  // pass of `includes` over the records and nothing else.
  const indexed = useMemo(() => records
    .map((r) => ({ r, text: `${r.owner} ${rdataText(r)} ${r.description}`.toLowerCase(), type: r.type.toLowerCase() }))
    .sort((a, b) => (a.r.owner < b.r.owner ? -1 : a.r.owner > b.r.owner ? 1 : 0) || (a.r.type < b.r.type ? -1 : a.r.type > b.r.type ? 1 : 0) || a.r.id - b.r.id), [records]);
  // Grouped by owner, then type: each RRset is one block with its name and type in a heading row.
  const groups = useMemo(() => {
    const needle = deferred.trim().toLowerCase();
    const sorted = (needle ? indexed.filter((x) => x.type === needle || x.text.includes(needle)) : indexed).map((x) => x.r);
    const out: Array<{ key: string; owner: string; type: string; records: ZoneRecord[] }> = [];
    for (const r of sorted) {
      const last = out[out.length - 1];
      if (last && last.owner === r.owner && last.type === r.type) last.records.push(r);
      else out.push({ key: `${r.owner} ${r.type}`, owner: r.owner, type: r.type, records: [r] });
    }
    return { groups: out, count: sorted.length };
  }, [indexed, deferred]);

  let budget = showAll ? Infinity : SHOWN;
  const visible = groups.groups.filter((g) => { if (budget <= 0) return false; budget -= g.records.length; return true; });

  async function bulk(action: 'delete' | 'ttl') {
    setBusy(true);
    setError(undefined);
    const ids = [...selected];
    let done = 0;
    try {
      for (const id of ids) {
        if (action === 'delete') await api(`zone_record/${id}`, { method: 'DELETE' });
        else await api(`zone_record/${id}`, { method: 'PUT', body: { ttl: Number(bulkTtl) } });
        done++;
      }
      setStatus(action === 'delete' ? `${done} record(s) deleted.` : `The TTL of ${done} record(s) is now ${bulkTtl}.`);
      setSelected(new Set());
    } catch (err) {
      setError(err as Error);
      setStatus(`${done} of ${ids.length} record(s) changed before the error.`);
    } finally {
      setBusy(false);
      setConfirmBulk(false);
      props.onChanged();
    }
  }

  const { onChanged } = props;
  const remove = useCallback(async (record: ZoneRecord) => {
    try {
      await api(`zone_record/${record.id}`, { method: 'DELETE' });
      setStatus(`${relativeOwner(record.owner, zone.zone)} ${record.type} deleted.`);
      onChanged();
    } catch (err) {
      setError(err as Error);
    }
  }, [zone.zone, onChanged]);

  const toggle = useCallback((id: number, on: boolean) => setSelected((s) => { const next = new Set(s); if (on) next.add(id); else next.delete(id); return next; }), []);

  return (
    <div className="kz-stack">
      {readOnly && <p>The records of a secondary zone are its primary's, transferred at each refresh: they are shown here read-only.</p>}
      {!readOnly && <AddRecord zone={zone} onAdded={(r) => { setStatus(`${relativeOwner(r.owner, zone.zone)} ${r.type} added.`); props.onChanged(); }} />}
      <StatusMessage>{status}</StatusMessage>
      <ErrorSummary error={error} />
      <div className="dns-toolbar">
        <TextField label="Filter records" type="search" value={filter} onChange={(e) => setFilter(e.target.value)} hint="name, type, data or description" />
        {!readOnly && <div className="kz-row" role="group" aria-label="Selected records">
          <span>{selected.size} selected</span>
          <TextField label="New TTL" inputMode="numeric" value={bulkTtl} onChange={(e) => setBulkTtl(e.target.value)} />
          <Button variant="secondary" disabled={selected.size === 0 || !/^\d+$/.test(bulkTtl)} busy={busy} onClick={() => void bulk('ttl')}>Change TTL</Button>
          <Button variant="danger" disabled={selected.size === 0} busy={busy} onClick={() => setConfirmBulk(true)}>Delete selected</Button>
        </div>}
      </div>
      <p className="kz-hint" aria-live="polite">{groups.count === records.length ? `${records.length} records` : `${groups.count} of ${records.length} records match`}</p>
      <div className="kz-table-wrap">
        <table className="dns-records">
          <caption className="kz-visually-hidden">Records of {zone.zone}, grouped by name and type</caption>
          <thead>
            <tr>{!readOnly && <th scope="col"><span className="kz-visually-hidden">Select</span></th>}<th scope="col">Name</th><th scope="col">Type</th><th scope="col">TTL</th><th scope="col">Data</th>{!readOnly && <th scope="col"><span className="kz-visually-hidden">Actions</span></th>}</tr>
          </thead>
          {visible.map((group) => (
            <tbody key={group.key}>
              <tr className="dns-group-head"><th scope="rowgroup" colSpan={readOnly ? 4 : 6}>{relativeOwner(group.owner, zone.zone)} {group.type}</th></tr>
              {group.records.map((r) => (editing === r.id
                ? <EditRecord key={r.id} zone={zone} record={r} onDone={(changed) => { setEditing(undefined); if (changed) { setStatus('Record saved.'); props.onChanged(); } }} />
                : <RecordRow key={r.id} record={r} zoneName={zone.zone} readOnly={readOnly} selected={selected.has(r.id)} onToggle={toggle} onEdit={setEditing} onDelete={remove} />))}
            </tbody>
          ))}
        </table>
      </div>
      {!showAll && groups.count > SHOWN && (
        <p className="kz-row">Showing the first {SHOWN} of {groups.count}. <Button variant="secondary" onClick={() => setShowAll(true)}>Show all</Button></p>
      )}
      <ConfirmDialog open={confirmBulk} title={`Delete ${selected.size} record(s)?`} confirmLabel="Delete records" danger busy={busy}
        onConfirm={() => void bulk('delete')} onCancel={() => setConfirmBulk(false)}>
        <p>Deleted records can be restored from the history.</p>
      </ConfirmDialog>
    </div>
  );
}

/** One record's row; memoized, so a filter key press or a selection redraws only the rows that changed. */
const RecordRow = memo(function RecordRow(props: {
  record: ZoneRecord; zoneName: string; readOnly: boolean; selected: boolean;
  onToggle(id: number, on: boolean): void; onEdit(id: number): void; onDelete(record: ZoneRecord): Promise<void>;
}) {
  const r = props.record;
  const what = `${relativeOwner(r.owner, props.zoneName)} ${r.type} ${rdataText(r)}`;
  return (
    <tr>
      {!props.readOnly && <td><input type="checkbox" aria-label={`Select ${what}`} checked={props.selected} onChange={(e) => props.onToggle(r.id, e.target.checked)} /></td>}
      <td>{relativeOwner(r.owner, props.zoneName)}</td>
      <td>{r.type}</td>
      <td>{r.ttl}</td>
      <td className="dns-rdata">{rdataText(r)}</td>
      {!props.readOnly && <td className="kz-row">
        <Button variant="secondary" onClick={() => props.onEdit(r.id)} aria-label={`Edit ${what}`}>Edit</Button>
        <Button variant="secondary" onClick={() => void props.onDelete(r)} aria-label={`Delete ${what}`}>Delete</Button>
      </td>}
    </tr>
  );
});

function AddRecord(props: { zone: Zone; onAdded(record: ZoneRecord): void }) {
  const [type, setType] = useState('A');
  const [values, setValues] = useState<Record<string, string>>({ owner: '', ttl: '' });
  const [error, setError] = useState<ApiError | Error | undefined>();
  const [busy, setBusy] = useState(false);
  const fields = TYPE_FIELDS[type] ?? [];

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const picked: Record<string, string> = { owner: values.owner || '@', ttl: values.ttl ?? '' };
      for (const f of fields) picked[f] = values[f] ?? '';
      const { zone_record: record } = await api<{ zone_record: ZoneRecord }>('zone_record', { body: { zid: props.zone.id, type, ...toBody(picked) } });
      setValues({ owner: '', ttl: '' });
      props.onAdded(record);
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  }

  const set = (key: string) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [key]: e.target.value }));
  return (
    <Card title="Add a record" headingLevel={2}>
      <form onSubmit={(e) => void submit(e)} noValidate className="kz-stack">
        <ErrorSummary error={error} title="The record was not added" />
        <div className="dns-inline">
          <TextField label="Name" value={values.owner ?? ''} onChange={set('owner')} hint="@ for the zone itself" error={fieldError(error, 'owner')} />
          <SelectField label="Type" value={type} onChange={(e) => setType(e.target.value)} error={fieldError(error, 'type')}>
            {Object.keys(TYPE_FIELDS).map((t) => <option key={t}>{t}</option>)}
          </SelectField>
          <TextField label="TTL" inputMode="numeric" value={values.ttl ?? ''} onChange={set('ttl')} hint={`default ${props.zone.ttl}`} error={fieldError(error, 'ttl')} />
          {fields.map((f) => (
            <TextField key={`${type}-${f}`} label={f} name={f} value={values[f] ?? ''} onChange={set(f)} error={fieldError(error, f)} />
          ))}
        </div>
        <div><Button type="submit" busy={busy}>Add record</Button></div>
      </form>
    </Card>
  );
}

function EditRecord(props: { zone: Zone; record: ZoneRecord; onDone(changed: boolean): void }) {
  const fields = dataFields(props.record);
  const [values, setValues] = useState<Record<string, string>>(() => ({
    owner: relativeOwner(props.record.owner, props.zone.zone), ttl: String(props.record.ttl),
    ...Object.fromEntries(fields.map((f) => [f, String(props.record[f] ?? '')])),
  }));
  const [error, setError] = useState<ApiError | Error | undefined>();
  const [busy, setBusy] = useState(false);
  const set = (key: string) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [key]: e.target.value }));

  async function save(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await api(`zone_record/${props.record.id}`, { method: 'PUT', body: toBody(values) });
      props.onDone(true);
    } catch (err) {
      setError(err as Error);
      setBusy(false);
    }
  }

  return (
    <tr>
      <td colSpan={6}>
        <form onSubmit={(e) => void save(e)} noValidate className="kz-stack" aria-label={`Edit ${values.owner} ${props.record.type}`}>
          <ErrorSummary error={error} title="The record was not saved" />
          <div className="dns-inline">
            <TextField label="Name" value={values.owner ?? ''} onChange={set('owner')} error={fieldError(error, 'owner')} />
            <TextField label="TTL" inputMode="numeric" value={values.ttl ?? ''} onChange={set('ttl')} error={fieldError(error, 'ttl')} />
            {fields.map((f) => <TextField key={f} label={f} value={values[f] ?? ''} onChange={set(f)} error={fieldError(error, f)} />)}
          </div>
          <div className="kz-row">
            <Button type="submit" busy={busy}>Save</Button>
            <Button variant="secondary" onClick={() => props.onDone(false)}>Cancel</Button>
          </div>
        </form>
      </td>
    </tr>
  );
}

function SoaSettings(props: { zone: Zone; onSaved(zone: Zone): void }) {
  const keys = ['description', 'mailaddr', 'ttl', 'refresh', 'retry', 'expire', 'minimum', 'serial'] as const;
  const [values, setValues] = useState<Record<string, string>>(() => Object.fromEntries(keys.map((k) => [k, String(props.zone[k])])));
  const [error, setError] = useState<ApiError | Error | undefined>();
  const [status, setStatus] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const labels: Record<string, string> = { description: 'Description', mailaddr: 'Hostmaster mailbox', ttl: 'Default TTL', refresh: 'Refresh', retry: 'Retry', expire: 'Expire', minimum: 'Negative TTL (minimum)', serial: 'Serial' };

  async function save(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const body: Record<string, unknown> = {};
      for (const k of keys) {
        const v = values[k] ?? '';
        if (v === String(props.zone[k])) continue;
        body[k] = k === 'description' || k === 'mailaddr' ? v : /^\d+$/.test(v) ? Number(v) : v;
      }
      if (Object.keys(body).length === 0) { setStatus('Nothing changed.'); return; }
      const { zone } = await api<{ zone: Zone }>(`zone/${props.zone.id}`, { method: 'PUT', body });
      setStatus('Saved.');
      props.onSaved(zone);
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={(e) => void save(e)} noValidate className="kz-stack">
      <StatusMessage>{status}</StatusMessage>
      <ErrorSummary error={error} title="The settings were not saved" />
      <div className="dns-inline">
        {keys.map((k) => (
          <TextField key={k} label={labels[k] ?? k} value={values[k] ?? ''} inputMode={k === 'description' || k === 'mailaddr' ? undefined : 'numeric'}
            onChange={(e) => setValues((v) => ({ ...v, [k]: e.target.value }))} error={fieldError(error, k)} />
        ))}
      </div>
      <div><Button type="submit" busy={busy}>Save settings</Button></div>
    </form>
  );
}
