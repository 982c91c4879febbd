// The group tree as NicTool shows it: the signed-in user's group and every group below it, each with its zone
// count, searchable by name (a match keeps its ancestors, so it is shown where it sits).
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { ApiError, Button, Card, ConfirmDialog, ErrorSummary, fieldError, SelectField, StatusMessage, TextField } from '@keyzone/ui/browser';
import { api, query, type Pagination } from './api';

interface Group {
  id: number;
  name: string;
  parent_gid: number;
  dnssec_default: boolean;
}

export function Groups(props: { groupId: number }) {
  const [groups, setGroups] = useState<Group[] | undefined>();
  const [counts, setCounts] = useState<Record<number, number>>({});
  const [search, setSearch] = useState('');
  const [error, setError] = useState<Error | undefined>();
  const [status, setStatus] = useState<string | undefined>();
  const [removing, setRemoving] = useState<Group | undefined>();
  const [deletedGroups, setDeletedGroups] = useState<Group[]>([]);
  const [reload, setReload] = useState(0);

  async function act(what: string, call: () => Promise<unknown>) {
    setError(undefined);
    try {
      await call();
      setStatus(what);
      setReload((n) => n + 1);
    } catch (err) {
      setError(err as Error);
    }
  }

  useEffect(() => {
    api<{ group: Group[] }>(`group?${query({ parent_gid: props.groupId, include_subgroups: true, deleted: true })}`)
      .then((r) => setDeletedGroups(r.group), () => setDeletedGroups([]));
  }, [props.groupId, reload]);

  useEffect(() => {
    (async () => {
      const own = await api<{ group: Group[] }>('group');
      const below = await api<{ group: Group[] }>(`group?${query({ parent_gid: props.groupId, include_subgroups: true })}`);
      const all = [...own.group, ...below.group];
      setGroups(all);
      // One count per group, a few at a time (each is a one-row page of GET /zone).
      for (let i = 0; i < all.length; i += 8) {
        const batch = await Promise.all(all.slice(i, i + 8).map(async (g) => {
          const page = await api<{ meta: { pagination: Pagination } }>(`zone?${query({ gid: g.id, limit: 1 })}`);
          return [g.id, page.meta.pagination.total] as const;
        }));
        setCounts((c) => ({ ...c, ...Object.fromEntries(batch) }));
      }
    })().catch((err: Error) => setError(err));
  }, [props.groupId, reload]);

  const { roots, children, shown } = useMemo(() => {
    const byParent = new Map<number, Group[]>();
    const byId = new Map((groups ?? []).map((g) => [g.id, g]));
    for (const g of groups ?? []) byParent.set(g.parent_gid, [...(byParent.get(g.parent_gid) ?? []), g]);
    for (const list of byParent.values()) list.sort((a, b) => a.name.localeCompare(b.name));
    const needle = search.trim().toLowerCase();
    const visible = new Set<number>();
    for (const g of groups ?? []) {
      if (needle && !g.name.toLowerCase().includes(needle)) continue;
      for (let at: Group | undefined = g; at && !visible.has(at.id); at = byId.get(at.parent_gid)) visible.add(at.id);
    }
    return { roots: (groups ?? []).filter((g) => !byId.has(g.parent_gid)), children: byParent, shown: visible };
  }, [groups, search]);

  const branch = (list: Group[]) => (
    <ul className="dns-tree">
      {list.filter((g) => shown.has(g.id)).map((g) => (
        <li key={g.id}>
          <span className="kz-row">
            <a href={`#/zones?gid=${g.id}`}>{g.name}</a>
            <a href={`#/users?gid=${g.id}`} aria-label={`Users of ${g.name}`} className="kz-hint">users</a>
            <span className="kz-hint">{counts[g.id] === undefined ? '…' : `${counts[g.id]} zone${counts[g.id] === 1 ? '' : 's'}`}{g.dnssec_default ? ' · new zones signed' : ''}</span>
            {g.id !== props.groupId && <Button variant="secondary" aria-label={`Delete group ${g.name}`} onClick={() => setRemoving(g)}>Delete</Button>}
          </span>
          {(children.get(g.id) ?? []).length > 0 && branch(children.get(g.id) ?? [])}
        </li>
      ))}
    </ul>
  );

  return (
    <div className="kz-stack">
      <h1>Groups</h1>
      <ErrorSummary error={error} />
      <TextField label="Search groups" type="search" value={search} onChange={(e) => setSearch(e.target.value)} />
      {groups === undefined && !error && <p role="status">Loading…</p>}
      <StatusMessage>{status}</StatusMessage>
      {groups && (shown.size === 0 ? <p>No group matches.</p> : <nav aria-label="Group tree">{branch(roots)}</nav>)}
      {groups && <AddSubgroup groups={groups} onAdded={(name) => { setStatus(`${name} was created.`); setReload((n) => n + 1); }} />}
      {deletedGroups.length > 0 && (
        <Card title="Deleted groups">
          <ul>
            {deletedGroups.map((g) => (
              <li key={g.id} className="kz-row">{g.name}
                <Button variant="secondary" aria-label={`Restore group ${g.name}`} onClick={() => void act(`${g.name} was restored.`, () => api(`group/${g.id}`, { method: 'PUT', body: { deleted: false } }))}>Restore</Button>
              </li>
            ))}
          </ul>
        </Card>
      )}
      <ConfirmDialog open={removing !== undefined} title={`Delete group ${removing?.name ?? ''}?`} confirmLabel="Delete group" danger
        onConfirm={() => { const g = removing; setRemoving(undefined); if (g) void act(`${g.name} was deleted.`, () => api(`group/${g.id}`, { method: 'DELETE' })); }}
        onCancel={() => setRemoving(undefined)}>
        <p>The API refuses while the group still holds users or groups. A deleted group can be restored.</p>
      </ConfirmDialog>
    </div>
  );
}

function AddSubgroup(props: { groups: Group[]; onAdded(name: string): void }) {
  const [name, setName] = useState('');
  const [parent, setParent] = useState(String(props.groups[0]?.id ?? ''));
  const [error, setError] = useState<ApiError | Error | undefined>();
  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    try {
      await api('group', { body: { name, parent_gid: Number(parent) } });
      props.onAdded(name);
      setName('');
    } catch (err) {
      setError(err as Error);
    }
  }
  return (
    <Card title="New subgroup">
      <form className="kz-stack" onSubmit={(e) => void submit(e)} noValidate>
        <ErrorSummary error={error} title="The group was not created" />
        <div className="dns-inline">
          <TextField label="Group name" value={name} onChange={(e) => setName(e.target.value)} error={fieldError(error, 'name')} />
          <SelectField label="Below" value={parent} onChange={(e) => setParent(e.target.value)} error={fieldError(error, 'parent_gid')}>
            {props.groups.map((g) => <option key={g.id} value={g.id}>{g.name}</option>)}
          </SelectField>
        </div>
        <div><Button type="submit">Create group</Button></div>
      </form>
    </Card>
  );
}
