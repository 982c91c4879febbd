// Permission objects (NicTool's, issue 38.4) in the console: a group's, or a user's own with the choice of inheriting
// the group's. A grid of objects × actions; a box the signed-in user could not grant (their own object lacks the
// flag) is disabled unless it is already ticked, since taking a right away is always allowed. The API checks every
// change itself (administrators only, nobody their own group or user, nothing beyond the writer's own rights) and
// its refusal is shown as it comes.
import { useEffect, useState } from 'react';
import { ApiError, Button, CheckboxGrid, ErrorSummary, StatusMessage } from '@keyzone/ui/browser';
import { api, permissionsOf, type PermissionFlags, type PermissionObject } from './api';

export const OBJECTS = [
  { key: 'zone', label: 'zones' },
  { key: 'zonerecord', label: 'zone records' },
  { key: 'nameserver', label: 'nameservers' },
  { key: 'user', label: 'users' },
  { key: 'group', label: 'groups' },
] as const;

export const ACTIONS = [
  { key: 'create', label: 'create' },
  { key: 'write', label: 'change' },
  { key: 'delete', label: 'delete' },
  { key: 'delegate', label: 'delegate' },
] as const;

const crud = (on: boolean) => ({ create: on, write: on, delete: on });

/** Every flag set: what applies when no permission object does (Keyzone's rules alone). */
export const ALL_FLAGS: PermissionFlags = {
  group: crud(true), user: crud(true), nameserver: crud(true),
  zone: { ...crud(true), delegate: true }, zonerecord: { ...crud(true), delegate: true }, self_write: true,
};

const NO_FLAGS: PermissionFlags = {
  group: crud(false), user: crud(false), nameserver: crud(false),
  zone: { ...crud(false), delegate: false }, zonerecord: { ...crud(false), delegate: false }, self_write: false,
};

/** Only the flags set in both. */
function intersect(a: PermissionFlags, b: PermissionFlags): PermissionFlags {
  const both = <T extends Record<string, boolean>>(x: T, y: T) => Object.fromEntries(Object.keys(x).map((k) => [k, x[k]! && y[k]!])) as T;
  return {
    group: both(a.group, b.group), user: both(a.user, b.user), nameserver: both(a.nameserver, b.nameserver),
    zone: both(a.zone, b.zone), zonerecord: both(a.zonerecord, b.zonerecord), self_write: a.self_write && b.self_write,
  };
}

/** The flags of an object, without its ids and usable list (those are not flags). */
export function flagsOf(object: PermissionObject | undefined): PermissionFlags {
  if (!object) return ALL_FLAGS;
  const pick = (o: { create: boolean; write: boolean; delete: boolean }) => ({ create: o.create, write: o.write, delete: o.delete });
  return {
    group: pick(object.group), user: pick(object.user), nameserver: pick(object.nameserver),
    zone: { ...object.zone }, zonerecord: { ...object.zonerecord }, self_write: object.self_write,
  };
}

function flagAt(flags: PermissionFlags, row: string, column: string): boolean | undefined {
  const entry = flags[row as keyof Omit<PermissionFlags, 'self_write'>] as Record<string, boolean> | undefined;
  return entry?.[column];
}

function withFlag(flags: PermissionFlags, row: string, column: string, on: boolean): PermissionFlags {
  const key = row as keyof Omit<PermissionFlags, 'self_write'>;
  return { ...flags, [key]: { ...flags[key], [column]: on } };
}

/** A read-only grid of flags (e.g. what the signed-in user may do in a group). */
export function FlagGrid(props: { caption: string; flags: PermissionFlags }) {
  return (
    <CheckboxGrid caption={props.caption} rows={OBJECTS} columns={ACTIONS} readOnly
      cell={(row, column) => { const on = flagAt(props.flags, row, column); return on === undefined ? undefined : { checked: on }; }} />
  );
}

/** The editable grid and the self_write box; `saved` decides which boxes stay enabled beyond `grantable`. */
function EditableFlags(props: {
  caption: string; flags: PermissionFlags; saved: PermissionFlags; grantable: PermissionFlags; disabled: boolean; onChange(next: PermissionFlags): void;
}) {
  const locked = (on: boolean | undefined, granted: boolean | undefined, had: boolean | undefined) => props.disabled || (!on && !granted && !had);
  return (
    <>
      <CheckboxGrid caption={props.caption} rows={OBJECTS} columns={ACTIONS}
        cell={(row, column) => {
          const on = flagAt(props.flags, row, column);
          if (on === undefined) return undefined;
          const cantGrant = locked(on, flagAt(props.grantable, row, column), flagAt(props.saved, row, column));
          return { checked: on, disabled: cantGrant, note: cantGrant && !props.disabled ? 'not yours to grant' : undefined };
        }}
        onChange={(row, column, on) => props.onChange(withFlag(props.flags, row, column, on))} />
      <label className="kz-row">
        <input type="checkbox" checked={props.flags.self_write} disabled={locked(props.flags.self_write, props.grantable.self_write, props.saved.self_write)}
          onChange={(e) => props.onChange({ ...props.flags, self_write: e.target.checked })} /> may change their own user (self write)
      </label>
    </>
  );
}

/** The request body of an object's flags (NicTool's shape; the group's usable_ns is a group setting, not sent). */
function flagsBody(flags: PermissionFlags) {
  return {
    self_write: flags.self_write, group: { ...flags.group }, user: { ...flags.user }, nameserver: { ...flags.nameserver },
    zone: { ...flags.zone }, zonerecord: { ...flags.zonerecord },
  };
}

export type PermissionSubject =
  | { kind: 'group'; gid: number; name: string }
  | { kind: 'user'; gid: number; id: number; username: string; inherit: boolean };

export function PermissionEditor(props: {
  subject: PermissionSubject;
  /** the signed-in user's own flags (GET /group/<id>/access): what they may grant */
  grantable: PermissionFlags;
  /** whether the signed-in user may write this object at all, and why not */
  canManage: boolean;
  whyNot?: string;
  onSaved?(): void;
}) {
  const { subject } = props;
  const [objects, setObjects] = useState<PermissionObject[] | undefined>();
  const [draft, setDraft] = useState<PermissionFlags>(ALL_FLAGS);
  const [inherit, setInherit] = useState(subject.kind === 'user' ? subject.inherit : true);
  const [error, setError] = useState<ApiError | Error | undefined>();
  const [status, setStatus] = useState<string | undefined>();
  const [reload, setReload] = useState(0);

  const groupObject = objects?.find((o) => o.user.id === undefined);
  const own = subject.kind === 'user' ? objects?.find((o) => o.user.id === subject.id) : undefined;
  const edited = subject.kind === 'group' ? groupObject : own;

  useEffect(() => {
    permissionsOf(subject.gid).then((list) => {
      setObjects(list);
      const group = list.find((o) => o.user.id === undefined);
      const mine = subject.kind === 'user' ? list.find((o) => o.user.id === subject.id) : undefined;
      // An object to write starts from what applied so far (a user's: the group's), less what the signed-in user
      // could not grant (a new object may not hold it).
      const existing = subject.kind === 'group' ? group : mine;
      setDraft(existing ? flagsOf(existing) : intersect(flagsOf(group), props.grantable));
      if (mine) setInherit(mine.inherit);
    }, (err: Error) => setError(err));
  }, [subject.gid, subject.kind, subject.kind === 'user' ? subject.id : 0, reload]);

  async function save() {
    setError(undefined);
    setStatus(undefined);
    try {
      if (subject.kind === 'group') {
        if (groupObject) await api(`permission/${groupObject.id}`, { method: 'PUT', body: flagsBody(draft) });
        else await api('permission', { body: { name: `${subject.name} permissions`, ...flagsBody(draft), group: { id: subject.gid, ...draft.group } } });
      } else if (own) {
        await api(`permission/${own.id}`, { method: 'PUT', body: { inherit, ...(inherit ? {} : flagsBody(draft)) } });
      } else if (!inherit) {
        await api('permission', { body: { name: `${subject.username} permissions`, inherit: false, ...flagsBody(draft), user: { id: subject.id, ...draft.user } } });
      } else if (!subject.inherit) {
        await api(`user/${subject.id}`, { method: 'PUT', body: { inherit_group_permissions: true } });
      }
      setStatus('The permissions were saved.');
      setReload((n) => n + 1);
      props.onSaved?.();
    } catch (err) {
      setError(err as Error);
    }
  }

  async function remove() {
    if (!edited) return;
    setError(undefined);
    try {
      await api(`permission/${edited.id}`, { method: 'DELETE' });
      setStatus('The permission object was removed.');
      setReload((n) => n + 1);
      props.onSaved?.();
    } catch (err) {
      setError(err as Error);
    }
  }

  const who = subject.kind === 'group' ? `group ${subject.name}` : subject.username;
  // A box ticked in the stored object may be ticked again; a new object may hold only what the writer may grant.
  const saved = edited ? flagsOf(edited) : NO_FLAGS;
  return (
    <div className="kz-stack">
      <ErrorSummary error={error} title="The permissions were not saved" />
      <StatusMessage>{status}</StatusMessage>
      {!props.canManage && props.whyNot && <p className="kz-hint">{props.whyNot}</p>}
      {objects === undefined && !error && <p role="status">Loading…</p>}
      {objects && subject.kind === 'group' && (
        <>
          <p>{groupObject ? `Permission object ${groupObject.id}${groupObject.name ? ` (${groupObject.name})` : ''} limits the users of this group who inherit it.`
            : 'This group has no permission object: Keyzone\'s rules alone apply to its users. Saving creates one with the boxes ticked below.'}</p>
          <EditableFlags caption={`Permissions of ${who}`} flags={draft} saved={saved} grantable={props.grantable} disabled={!props.canManage} onChange={setDraft} />
        </>
      )}
      {objects && subject.kind === 'user' && (
        <>
          <label className="kz-row">
            <input type="checkbox" checked={inherit} disabled={!props.canManage} onChange={(e) => setInherit(e.target.checked)} /> Inherit the group&apos;s permissions
          </label>
          {inherit
            ? <FlagGrid caption={`Inherited from the group${groupObject ? ` (permission object ${groupObject.id})` : ': no object, Keyzone\'s rules alone'}`} flags={flagsOf(groupObject)} />
            : <EditableFlags caption={`${who}'s own permissions`} flags={draft} saved={saved} grantable={props.grantable} disabled={!props.canManage} onChange={setDraft} />}
          {inherit && own && <p className="kz-hint">{who} also has an own permission object ({own.id}), which applies when they stop inheriting.</p>}
        </>
      )}
      {objects && (
        <div className="kz-row">
          <Button disabled={!props.canManage} onClick={() => void save()}>Save permissions</Button>
          {edited && <Button variant="secondary" disabled={!props.canManage} onClick={() => void remove()}>Remove permission object</Button>}
        </div>
      )}
    </div>
  );
}
