// The group tree as NicTool shows it: the signed-in user's group and every group below it, each with its zone
// count, searchable by name (a match keeps its ancestors, so it is shown where it sits). A group chosen in the tree
// (#/groups?gid=<id>) shows what the signed-in user may do there, its name and place, its settings and its
// permission object; controls the API would refuse are disabled, and a refusal is shown as it comes.
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { ApiError, Button, Card, ConfirmDialog, ErrorSummary, fieldError, SelectField, StatusMessage, TextField } from '@keyzone/ui/browser';
import { api, groupAccess, query, type GroupAccess, type Nameserver, type Pagination } from './api';
import { FlagGrid, PermissionEditor } from './Permissions';

interface Group {
  id: number;
  name: string;
  parent_gid: number;
  dnssec_default: boolean;
  usable_ns: number[] | null;
}

export function Groups(props: { groupId: number; selected?: number }) {
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

  const selectedGroup = groups?.find((g) => g.id === props.selected);

  const branch = (list: Group[]) => (
    <ul className="dns-tree">
      {list.filter((g) => shown.has(g.id)).map((g) => (
        <li key={g.id}>
          <span className="kz-row">
            <a href={`#/zones?gid=${g.id}`}>{g.name}</a>
            <a href={`#/users?gid=${g.id}`} aria-label={`Users of ${g.name}`} className="kz-hint">users</a>
            <span className="kz-hint">{counts[g.id] === undefined ? '…' : `${counts[g.id]} zone${counts[g.id] === 1 ? '' : 's'}`}{g.dnssec_default ? ' · new zones signed' : ''}</span>
            <a href={`#/groups?gid=${g.id}`} aria-label={`Manage group ${g.name}`} aria-current={g.id === props.selected ? 'true' : undefined} className="kz-hint">manage</a>
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
      {selectedGroup && groups && (
        <GroupPanel key={`${selectedGroup.id}-${reload}`} group={selectedGroup} groups={groups}
          onChanged={(what) => { setStatus(what); setReload((n) => n + 1); }} />
      )}
      {groups && props.selected !== undefined && !selectedGroup && <p>Group {props.selected} is not among your groups.</p>}
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

const yesNo = (on: boolean) => (on ? 'yes' : 'no');

/** One group: what the signed-in user may do there (GET /group/<id>/access), and what they may change of it. */
function GroupPanel(props: { group: Group; groups: Group[]; onChanged(what: string): void }) {
  const { group } = props;
  const [access, setAccess] = useState<GroupAccess | undefined>();
  const [error, setError] = useState<Error | undefined>();

  useEffect(() => {
    groupAccess(group.id).then(setAccess, (err: Error) => setError(err));
  }, [group.id]);

  if (!access) return error ? <ErrorSummary error={error} /> : <p role="status">Loading…</p>;
  const source = access.applies.source === 'none'
    ? 'No permission object applies to you: Keyzone\'s rules alone (administrators manage users and groups).'
    : `Your permissions come from ${access.applies.source === 'user' ? 'your own' : 'your group\'s'} permission object ${access.applies.id}${access.applies.name ? ` (${access.applies.name})` : ''}.`;
  const may = access.group;
  return (
    <>
      <Card title={`Group ${group.name}`}>
        <h3>What you may do here</h3>
        <p>{source} {access.is_admin ? 'You are an administrator.' : 'You are not an administrator.'}</p>
        <dl className="dns-status" aria-label="Your rights on this group">
          <dt>Rename</dt><dd>{yesNo(may.rename)}</dd>
          <dt>Move</dt><dd>{yesNo(may.move)}</dd>
          <dt>Change its settings</dt><dd>{yesNo(may.dnssec_default)}</dd>
          <dt>Limit its nameservers</dt><dd>{yesNo(may.usable_ns)}</dd>
          <dt>Set its permissions</dt><dd>{yesNo(may.permissions)}</dd>
          <dt>Delete</dt><dd>{yesNo(may.delete)}</dd>
        </dl>
        <FlagGrid caption="What you may do in this group" flags={access.allowed} />
      </Card>
      <RenameMove group={group} groups={props.groups} access={access} onChanged={props.onChanged} />
      <Settings group={group} groups={props.groups} access={access} onChanged={props.onChanged} />
      <Card title={`Permissions of ${group.name}`}>
        <PermissionEditor subject={{ kind: 'group', gid: group.id, name: group.name }} grantable={access.grantable} canManage={may.permissions}
          whyNot="Only an administrator of a group above this one sets its permissions." onSaved={() => props.onChanged(`The permissions of ${group.name} were saved.`)} />
      </Card>
    </>
  );
}

function RenameMove(props: { group: Group; groups: Group[]; access: GroupAccess; onChanged(what: string): void }) {
  const { group, access } = props;
  const [name, setName] = useState(group.name);
  const [parent, setParent] = useState(String(group.parent_gid));
  const [error, setError] = useState<ApiError | Error | undefined>();
  // Every other group is offered: the API refuses a move below the group itself and says so.
  const parents = props.groups.filter((g) => g.id !== group.id);
  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    const body: Record<string, unknown> = {};
    if (name !== group.name) body.name = name;
    if (Number(parent) !== group.parent_gid) body.parent_gid = Number(parent);
    if (Object.keys(body).length === 0) return;
    try {
      await api(`group/${group.id}`, { method: 'PUT', body });
      props.onChanged(`${name} was saved.`);
    } catch (err) {
      setError(err as Error);
    }
  }
  const locked = !access.group.rename && !access.group.move;
  return (
    <Card title="Name and place">
      <form className="kz-stack" onSubmit={(e) => void submit(e)} noValidate>
        <ErrorSummary error={error} title="The group was not changed" />
        {locked && <p className="kz-hint">Only an administrator whose permissions allow changing groups renames or moves a group, and never their own.</p>}
        <div className="dns-inline">
          <TextField label="New name" value={name} disabled={!access.group.rename} onChange={(e) => setName(e.target.value)} error={fieldError(error, 'name')} />
          <SelectField label="Parent group" value={parent} disabled={!access.group.move} onChange={(e) => setParent(e.target.value)} error={fieldError(error, 'parent_gid')}>
            {!parents.some((g) => g.id === group.parent_gid) && <option value={group.parent_gid}>(a group above yours)</option>}
            {parents.map((g) => <option key={g.id} value={g.id}>{g.name}</option>)}
          </SelectField>
        </div>
        <div><Button type="submit" disabled={locked}>Save name and place</Button></div>
      </form>
    </Card>
  );
}

/** The ids of a group and of the groups above it that the tree holds. */
function chainOf(groups: Group[], id: number): number[] {
  const byId = new Map(groups.map((g) => [g.id, g]));
  const out: number[] = [];
  for (let at = byId.get(id); at && !out.includes(at.id); at = byId.get(at.parent_gid)) out.push(at.id);
  return out;
}

function Settings(props: { group: Group; groups: Group[]; access: GroupAccess; onChanged(what: string): void }) {
  const { group, access } = props;
  const [dnssec, setDnssec] = useState(group.dnssec_default);
  const [limited, setLimited] = useState(group.usable_ns !== null);
  const [usable, setUsable] = useState<number[]>(group.usable_ns ?? []);
  const [candidates, setCandidates] = useState<Nameserver[]>([]);
  const [error, setError] = useState<ApiError | Error | undefined>();

  useEffect(() => {
    // usable_ns lists nameservers of the groups above this one: those of the tree's groups above it, and those of
    // the groups above the signed-in user's (not in the tree).
    const inTree = new Set(props.groups.map((g) => g.id));
    const above = new Set(chainOf(props.groups, group.id).filter((id) => id !== group.id));
    api<{ nameserver: Array<Nameserver & { gid: number }> }>(`nameserver?${query({ usable: true, include_subgroups: true })}`)
      .then((r) => setCandidates(r.nameserver.filter((ns) => above.has(ns.gid) || !inTree.has(ns.gid))), () => setCandidates([]));
  }, [group.id, props.groups]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    const body: Record<string, unknown> = {};
    if (dnssec !== group.dnssec_default) body.dnssec_default = dnssec;
    const next = limited ? [...usable].sort((a, b) => a - b) : null;
    if (JSON.stringify(next) !== JSON.stringify(group.usable_ns)) body.usable_ns = next;
    if (Object.keys(body).length === 0) return;
    try {
      await api(`group/${group.id}`, { method: 'PUT', body });
      props.onChanged(`The settings of ${group.name} were saved.`);
    } catch (err) {
      setError(err as Error);
    }
  }
  const nsLocked = !access.group.usable_ns;
  return (
    <Card title="Settings">
      <form className="kz-stack" onSubmit={(e) => void submit(e)} noValidate>
        <ErrorSummary error={error} title="The settings were not saved" />
        <label className="kz-row">
          <input type="checkbox" checked={dnssec} disabled={!access.group.dnssec_default} onChange={(e) => setDnssec(e.target.checked)} /> Sign new zones (DNSSEC) by default
        </label>
        <fieldset className="kz-stack">
          <legend>Nameservers of the groups above that its zones may use</legend>
          {nsLocked && <p className="kz-hint">Only an administrator above this group, whose permissions allow changing groups, sets this.</p>}
          <label className="kz-row"><input type="radio" name={`usable-${group.id}`} checked={!limited} disabled={nsLocked} onChange={() => setLimited(false)} /> All of them</label>
          <label className="kz-row"><input type="radio" name={`usable-${group.id}`} checked={limited} disabled={nsLocked} onChange={() => setLimited(true)} /> Only these:</label>
          {candidates.length === 0 && <p className="kz-hint">No nameserver of a group above this one.</p>}
          <ul>
            {candidates.map((ns) => (
              <li key={ns.id}>
                <label className="kz-row">
                  <input type="checkbox" checked={usable.includes(ns.id)} disabled={nsLocked || !limited}
                    onChange={(e) => setUsable((u) => (e.target.checked ? [...u, ns.id] : u.filter((x) => x !== ns.id)))} /> {ns.name}
                </label>
              </li>
            ))}
          </ul>
        </fieldset>
        <div><Button type="submit" disabled={!access.group.dnssec_default && nsLocked}>Save settings</Button></div>
      </form>
    </Card>
  );
}
