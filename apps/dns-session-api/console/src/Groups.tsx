// The group tree as NicTool shows it: the signed-in user's group and every group below it, each with its zone
// count, searchable by name (a match keeps its ancestors, so it is shown where it sits).
import { useEffect, useMemo, useState } from 'react';
import { ErrorSummary, TextField } from '@keyzone/ui/browser';
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
  }, [props.groupId]);

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
      {groups && (shown.size === 0 ? <p>No group matches.</p> : <nav aria-label="Group tree">{branch(roots)}</nav>)}
    </div>
  );
}
