// The audit history of a zone and its records, newest first, each change with what it was before and after, and
// "Restore" to put the earlier state back (through the same PUT any client would send).
import { useEffect, useState } from 'react';
import { Button, ErrorSummary, StatusMessage } from '@keyzone/ui/browser';
import { api, query, type HistoryEntry, type Pagination, type Zone } from './api';

const SHOWN = 200;
const RECORD_IGNORED = new Set(['id', 'zid', 'deleted', 'last_modified']);
const ZONE_KEYS = ['description', 'mailaddr', 'refresh', 'retry', 'expire', 'minimum', 'ttl', 'nameservers'];

function changedKeys(entry: HistoryEntry): string[] {
  const keys = new Set([...Object.keys(entry.before ?? {}), ...Object.keys(entry.after ?? {})]);
  return [...keys].filter((k) => k !== 'last_modified' && JSON.stringify(entry.before?.[k]) !== JSON.stringify(entry.after?.[k]));
}

const show = (value: unknown) => (value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value));

export function History(props: { zone: Zone; onRestored(): void }) {
  const [entries, setEntries] = useState<HistoryEntry[] | undefined>();
  const [only, setOnly] = useState<number | undefined>();
  const [error, setError] = useState<Error | undefined>();
  const [status, setStatus] = useState<string | undefined>();
  const [reload, setReload] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    const base = only === undefined ? `zone/${props.zone.id}/history` : `zone_record/${only}/history`;
    (async () => {
      const first = await api<{ history: HistoryEntry[]; meta: { pagination: Pagination } }>(`${base}?${query({ limit: 1 })}`, { signal: controller.signal });
      const offset = Math.max(0, first.meta.pagination.total - SHOWN);
      const page = await api<{ history: HistoryEntry[] }>(`${base}?${query({ limit: SHOWN, offset })}`, { signal: controller.signal });
      setEntries([...page.history].reverse());
    })().catch((err: Error) => err.name !== 'AbortError' && setError(err));
    return () => controller.abort();
  }, [props.zone.id, only, reload]);

  async function restore(entry: HistoryEntry) {
    setError(undefined);
    try {
      const url = entry.object === 'zone' ? `zone/${entry.object_id}` : `zone_record/${entry.object_id}`;
      let body: Record<string, unknown>;
      if (entry.action === 'delete') body = { deleted: false };
      else if (entry.object === 'zone') body = Object.fromEntries(ZONE_KEYS.filter((k) => entry.before?.[k] !== undefined).map((k) => [k, entry.before?.[k]]));
      else body = Object.fromEntries(Object.entries(entry.before ?? {}).filter(([k]) => !RECORD_IGNORED.has(k)));
      await api(url, { method: 'PUT', body });
      setStatus(`Restored ${entry.object.replace('_', ' ')} ${entry.object_id} to how it was before change ${entry.id}.`);
      setReload((n) => n + 1);
      props.onRestored();
    } catch (err) {
      setError(err as Error);
    }
  }

  return (
    <div className="kz-stack">
      <StatusMessage>{status}</StatusMessage>
      <ErrorSummary error={error} />
      {only !== undefined && <p className="kz-row">History of record {only}. <Button variant="secondary" onClick={() => setOnly(undefined)}>Whole zone</Button></p>}
      {entries === undefined && !error && <p role="status">Loading the history…</p>}
      {entries?.length === 0 && <p>No changes yet.</p>}
      <ol className="kz-stack" aria-label="Changes, newest first">
        {entries?.map((entry) => {
          const keys = changedKeys(entry);
          const subject = show(entry.after?.owner ?? entry.before?.owner ?? entry.after?.zone ?? entry.before?.zone ?? '');
          return (
            <li key={entry.id} className="kz-card kz-stack">
              <h3>{entry.action} {entry.object.replace('_', ' ')} {subject} {show(entry.after?.type ?? entry.before?.type ?? '')}</h3>
              <p className="kz-hint">{new Date(entry.at).toLocaleString()}{entry.user ? ` by user ${entry.user.id}` : ''}</p>
              <div className="kz-table-wrap">
                <table>
                  <caption className="kz-visually-hidden">Change {entry.id}: before and after</caption>
                  <thead><tr><th scope="col">Field</th><th scope="col">Before</th><th scope="col">After</th></tr></thead>
                  <tbody>
                    {keys.map((k) => <tr key={k}><th scope="row">{k}</th><td><del>{show(entry.before?.[k])}</del></td><td><ins>{show(entry.after?.[k])}</ins></td></tr>)}
                  </tbody>
                </table>
              </div>
              <div className="kz-row">
                {entry.before && (entry.action === 'update' || entry.action === 'delete') && (
                  <Button variant="secondary" onClick={() => void restore(entry)}>Restore {entry.action === 'delete' ? 'it' : 'the version before'}</Button>
                )}
                {entry.object === 'zone_record' && only === undefined && (
                  <Button variant="secondary" onClick={() => setOnly(entry.object_id)}>History of this record</Button>
                )}
              </div>
            </li>
          );
        })}
      </ol>
    </div>
  );
}
