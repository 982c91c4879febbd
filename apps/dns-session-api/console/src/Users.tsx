// The users of a group (default: the signed-in user's): create, edit, delete after a confirmation, and the deleted
// ones with restore, and a user's permissions (their own permission object or the group's they inherit). The API
// decides who may do what (administrators manage the users of their subtree); its refusal is shown as it comes.
import { useEffect, useState, type FormEvent } from 'react';
import { ApiError, Button, Card, ConfirmDialog, ErrorSummary, fieldError, StatusMessage, TextField } from '@keyzone/ui/browser';
import { api, groupAccess, query, type GroupAccess } from './api';
import { PermissionEditor } from './Permissions';

interface User {
  id: number;
  username: string;
  first_name: string;
  last_name: string;
  email: string;
  is_admin: boolean;
  inherit_group_permissions: boolean;
  deleted: boolean;
}

const none = { create: false, write: false, delete: false };

const EMPTY = { username: '', email: '', password: '', first_name: '', last_name: '' };

export function Users(props: { gid: number; me?: number }) {
  const [users, setUsers] = useState<User[] | undefined>();
  const [deleted, setDeleted] = useState(false);
  const [error, setError] = useState<Error | undefined>();
  const [status, setStatus] = useState<string | undefined>();
  const [editing, setEditing] = useState<User | undefined>();
  const [removing, setRemoving] = useState<User | undefined>();
  const [permitting, setPermitting] = useState<User | undefined>();
  const [access, setAccess] = useState<GroupAccess | undefined>();
  const [reload, setReload] = useState(0);

  useEffect(() => {
    groupAccess(props.gid).then(setAccess, () => setAccess(undefined));
  }, [props.gid]);

  useEffect(() => {
    api<{ user: User[] }>(`group/${props.gid}/users?${query({ deleted: deleted || undefined })}`)
      .then((r) => { setUsers(r.user); setError(undefined); }, (err: Error) => setError(err));
  }, [props.gid, deleted, reload]);

  async function act(what: string, call: () => Promise<unknown>) {
    try {
      await call();
      setStatus(what);
      setReload((n) => n + 1);
    } catch (err) {
      setError(err as Error);
    }
  }

  return (
    <div className="kz-stack">
      <h1>Users of group {props.gid}</h1>
      <StatusMessage>{status}</StatusMessage>
      <ErrorSummary error={error} />
      <label className="kz-row"><input type="checkbox" checked={deleted} onChange={(e) => setDeleted(e.target.checked)} /> Deleted users</label>
      <div className="kz-table-wrap">
        <table>
          <caption className="kz-visually-hidden">{deleted ? 'Deleted users' : 'Users'}</caption>
          <thead><tr><th scope="col">User</th><th scope="col">Name</th><th scope="col">E-mail</th><th scope="col">Administrator</th><th scope="col"><span className="kz-visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            {users?.map((u) => (
              <tr key={u.id}>
                <td>{u.username}</td><td>{u.first_name} {u.last_name}</td><td>{u.email}</td><td>{u.is_admin ? 'yes' : 'no'}</td>
                <td className="kz-row">
                  {deleted
                    ? <Button variant="secondary" aria-label={`Restore ${u.username}`} onClick={() => void act(`${u.username} was restored.`, () => api(`user/${u.id}`, { method: 'PUT', body: { deleted: false } }))}>Restore</Button>
                    : <>
                        <Button variant="secondary" aria-label={`Edit ${u.username}`} onClick={() => setEditing(u)}>Edit</Button>
                        <Button variant="secondary" aria-label={`Permissions of ${u.username}`} onClick={() => setPermitting(u)}>Permissions</Button>
                        <Button variant="secondary" aria-label={`Delete ${u.username}`} onClick={() => setRemoving(u)}>Delete</Button>
                      </>}
                </td>
              </tr>
            ))}
            {users?.length === 0 && <tr><td colSpan={5}>No users.</td></tr>}
          </tbody>
        </table>
      </div>
      {permitting && (
        // the user as the list has them now (inherit_group_permissions changes with a save)
        <Card title={`Permissions of ${permitting.username}`}>
          <PermissionEditor key={permitting.id}
            subject={{ kind: 'user', gid: props.gid, id: permitting.id, username: permitting.username, inherit: (users?.find((u) => u.id === permitting.id) ?? permitting).inherit_group_permissions }}
            grantable={access?.grantable ?? { group: none, user: none, nameserver: none, zone: { ...none, delegate: false }, zonerecord: { ...none, delegate: false }, self_write: false }}
            canManage={Boolean(access?.is_admin) && permitting.id !== props.me}
            whyNot={permitting.id === props.me ? 'Nobody sets their own permissions: an administrator of your group or above does.' : 'Only administrators set users\' permissions.'}
            onSaved={() => setReload((n) => n + 1)} />
          <div><Button variant="secondary" onClick={() => setPermitting(undefined)}>Close permissions</Button></div>
        </Card>
      )}
      {editing && <EditUser key={editing.id} user={editing} onDone={(saved) => { setEditing(undefined); if (saved) { setStatus(`${saved} was saved.`); setReload((n) => n + 1); } }} />}
      <CreateUser gid={props.gid} onCreated={(name) => { setStatus(`${name} was created.`); setReload((n) => n + 1); }} />
      <ConfirmDialog open={removing !== undefined} title={`Delete ${removing?.username ?? ''}?`} confirmLabel="Delete user" danger
        onConfirm={() => { const u = removing; setRemoving(undefined); if (u) void act(`${u.username} was deleted.`, () => api(`user/${u.id}`, { method: 'DELETE' })); }}
        onCancel={() => setRemoving(undefined)}>
        <p>They can no longer sign in. A deleted user can be restored.</p>
      </ConfirmDialog>
    </div>
  );
}

function UserFields(props: { values: typeof EMPTY; set(key: keyof typeof EMPTY, value: string): void; error: ApiError | Error | undefined; passwordHint: string }) {
  const bind = (key: keyof typeof EMPTY) => ({ value: props.values[key], onChange: (e: { target: { value: string } }) => props.set(key, e.target.value), error: fieldError(props.error, key) });
  return (
    <div className="dns-inline">
      <TextField label="Username" autoComplete="off" {...bind('username')} />
      <TextField label="E-mail" type="email" autoComplete="off" {...bind('email')} />
      <TextField label="First name" {...bind('first_name')} />
      <TextField label="Last name" {...bind('last_name')} />
      <TextField label="Password" type="password" autoComplete="new-password" hint={props.passwordHint} {...bind('password')} />
    </div>
  );
}

function CreateUser(props: { gid: number; onCreated(username: string): void }) {
  const [values, setValues] = useState(EMPTY);
  const [admin, setAdmin] = useState(false);
  const [error, setError] = useState<ApiError | Error | undefined>();
  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    try {
      await api('user', { body: { gid: props.gid, ...values, is_admin: admin } });
      props.onCreated(values.username);
      setValues(EMPTY);
      setAdmin(false);
    } catch (err) {
      setError(err as Error);
    }
  }
  return (
    <Card title="New user">
      <form className="kz-stack" onSubmit={(e) => void submit(e)} noValidate>
        <ErrorSummary error={error} title="The user was not created" />
        <UserFields values={values} set={(k, v) => setValues((x) => ({ ...x, [k]: v }))} error={error} passwordHint="the first password; they can change it" />
        <label className="kz-row"><input type="checkbox" checked={admin} onChange={(e) => setAdmin(e.target.checked)} /> Administrator of this group and the groups below</label>
        <div><Button type="submit">Create user</Button></div>
      </form>
    </Card>
  );
}

function EditUser(props: { user: User; onDone(saved?: string): void }) {
  const [values, setValues] = useState({ username: props.user.username, email: props.user.email, first_name: props.user.first_name, last_name: props.user.last_name, password: '' });
  const [admin, setAdmin] = useState(props.user.is_admin);
  const [error, setError] = useState<ApiError | Error | undefined>();
  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    const body: Record<string, unknown> = { is_admin: admin };
    for (const [k, v] of Object.entries(values)) if (v !== '' && v !== (props.user as unknown as Record<string, unknown>)[k]) body[k] = v;
    if (admin === props.user.is_admin) delete body.is_admin;
    if (Object.keys(body).length === 0) { props.onDone(); return; }
    try {
      await api(`user/${props.user.id}`, { method: 'PUT', body });
      props.onDone(values.username);
    } catch (err) {
      setError(err as Error);
    }
  }
  return (
    <Card title={`Edit ${props.user.username}`}>
      <form className="kz-stack" onSubmit={(e) => void submit(e)} noValidate>
        <ErrorSummary error={error} title="The user was not saved" />
        <UserFields values={values} set={(k, v) => setValues((x) => ({ ...x, [k]: v }))} error={error} passwordHint="empty: unchanged; a new one ends their sessions" />
        <label className="kz-row"><input type="checkbox" checked={admin} onChange={(e) => setAdmin(e.target.checked)} /> Administrator</label>
        <div className="kz-row"><Button type="submit">Save user</Button><Button variant="secondary" onClick={() => props.onDone()}>Cancel</Button></div>
      </form>
    </Card>
  );
}
