// The audit log, newest first, with filters (a user, an actor, an action), a page at a time. Also the user page's
// trail (`userId` fixed).
import { useCallback, useEffect, useState } from 'react';
import { Button, ErrorSummary, TextField } from '@keyzone/ui/browser';
import type { Api } from './session';
import { formatDate } from './users-model';

interface AuditEntry {
  id: string;
  created_at?: string;
  ip_address?: string;
  payload: { action?: string; actor_id?: string; actor_username?: string; log_type?: string; traits?: Record<string, unknown> };
}

const PER_PAGE = 25;

export function AuditTable(props: { api: Api; caption: string; filters: Record<string, string>; /** Changes after each action, to read the log again. */ revision?: number }) {
  const { api, filters, revision } = props;
  const [page, setPage] = useState(1);
  const [entries, setEntries] = useState<AuditEntry[] | undefined>();
  const [hasMore, setHasMore] = useState(false);
  const [error, setError] = useState<Error | undefined>();
  const query = JSON.stringify(filters);
  useEffect(() => setPage(1), [query]);
  const load = useCallback((signal: AbortSignal) => {
    const params = new URLSearchParams({ page: String(page), per_page: String(PER_PAGE) });
    for (const [key, value] of Object.entries(JSON.parse(query) as Record<string, string>)) if (value.trim()) params.set(key, value.trim());
    api<AuditEntry[]>(`/admin/audit?${params.toString()}`, { signal }).then(
      // A full page may be the last one: its Next then shows an empty page, which costs one request.
      (rows) => { setEntries(rows); setHasMore(rows.length === PER_PAGE); setError(undefined); },
      (cause: Error) => { if (cause.name !== 'AbortError') setError(cause); },
    );
  }, [api, page, query, revision]);
  useEffect(() => {
    const controller = new AbortController();
    load(controller.signal);
    return () => controller.abort();
  }, [load]);
  return (
    <div className="kz-stack">
      <ErrorSummary error={error} />
      <div className="kz-table-wrap">
        <table className="kz-table">
          <caption>{props.caption}{page > 1 ? ` (page ${page})` : ''}</caption>
          <thead><tr><th scope="col">When</th><th scope="col">Action</th><th scope="col">Actor</th><th scope="col">Details</th><th scope="col">Address</th></tr></thead>
          <tbody>
            {entries?.length === 0 && <tr><td colSpan={5}>No entry.</td></tr>}
            {entries?.map((e) => (
              <tr key={e.id}>
                <td>{formatDate(e.created_at)}</td>
                <td>{e.payload.action ?? ''}</td>
                <td>{e.payload.actor_username || e.payload.actor_id || ''}</td>
                <td className="kz-mono">{e.payload.traits ? JSON.stringify(e.payload.traits) : ''}</td>
                <td>{e.ip_address ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <nav className="kz-row" aria-label={`${props.caption} pages`}>
        <Button variant="secondary" disabled={page <= 1} onClick={() => setPage((p) => p - 1)}>Previous</Button>
        <Button variant="secondary" disabled={!hasMore} onClick={() => setPage((p) => p + 1)}>Next</Button>
      </nav>
    </div>
  );
}

export function AuditScreen(props: { api: Api }) {
  const empty = { user_id: '', actor_id: '', action: '' };
  const [draft, setDraft] = useState(empty);
  const [applied, setApplied] = useState(empty);
  const set = (key: keyof typeof empty) => (event: { target: { value: string } }) => setDraft((d) => ({ ...d, [key]: event.target.value }));
  return (
    <div className="kz-stack">
      <h1>Audit log</h1>
      <form role="search" className="kz-stack" onSubmit={(e) => { e.preventDefault(); setApplied(draft); }}>
        <div className="ac-filters">
          <TextField label="User id" hint="What they did or what was done to them" value={draft.user_id} onChange={set('user_id')} />
          <TextField label="Actor id" value={draft.actor_id} onChange={set('actor_id')} />
          <TextField label="Action" hint="login, user_modified, logout…" value={draft.action} onChange={set('action')} />
        </div>
        <div className="kz-row"><Button type="submit">Filter</Button></div>
      </form>
      <AuditTable api={props.api} caption="Audit log" filters={applied} />
    </div>
  );
}
