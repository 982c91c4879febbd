// The audit log, newest first, with filters (a user, an actor, an action), a keyset page at a time. Also the user
// page's trail (`userId` fixed).
import { useCallback, useState } from 'react';
import { Button, KeysetTable, TextField, type Column } from '@keyzone/ui/browser';
import type { Api } from './session';
import { formatDate } from './users-model';

interface AuditEntry {
  id: string;
  created_at?: string;
  ip_address?: string;
  payload: { action?: string; actor_id?: string; actor_username?: string; log_type?: string; traits?: Record<string, unknown> };
}

const PER_PAGE = 25;

const columns: Column<AuditEntry>[] = [
  { header: 'When', cell: (e) => formatDate(e.created_at) },
  { header: 'Action', cell: (e) => e.payload.action ?? '' },
  { header: 'Actor', cell: (e) => e.payload.actor_username || e.payload.actor_id || '' },
  { header: 'Details', cell: (e) => <span className="kz-mono">{e.payload.traits ? JSON.stringify(e.payload.traits) : ''}</span> },
  { header: 'Address', cell: (e) => e.ip_address ?? '' },
];

/**
 * Keyset pages (GET /admin/audit?limit&cursor, the users list's wire): Next follows the server's cursor, so a page
 * deep in a long log costs what the first costs, and entries written meanwhile never shift a page.
 */
export function AuditTable(props: { api: Api; caption: string; filters: Record<string, string>; /** Changes after each action, to read the log again. */ revision?: number }) {
  const { api, filters, revision } = props;
  const query = JSON.stringify(filters);
  const load = useCallback(async (cursor: string | undefined, signal: AbortSignal) => {
    const params = new URLSearchParams({ limit: String(PER_PAGE) });
    for (const [key, value] of Object.entries(JSON.parse(query) as Record<string, string>)) if (value.trim()) params.set(key, value.trim());
    if (cursor) params.set('cursor', cursor);
    const page = await api<{ entries: AuditEntry[]; pagination: { next_cursor?: string } }>(`/admin/audit?${params.toString()}`, { signal });
    return { rows: page.entries, nextCursor: page.pagination.next_cursor };
    // revision is not read: a new function (after an action) makes the table read the log again from its first page.
  }, [api, query, revision]);
  return <KeysetTable caption={props.caption} columns={columns} rowKey={(e) => e.id} load={load} empty="No entry." />;
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
