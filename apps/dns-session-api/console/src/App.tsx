// The console's frame: who is signed in, the navigation, and which screen the hash route shows.
import { useEffect, useRef, useState } from 'react';
import { ApiError, Button, Card, requestJson, Shell } from '@keyzone/ui/browser';
import { api, whenSessionEnds, type Login } from './api';
import { navigate, useRoute } from './router';
import { SignInForm } from './SignIn';
import { Zones } from './Zones';
import { ZoneView } from './ZoneView';
import { Tokens } from './Tokens';
import { ImportZone } from './ImportZone';
import { Nameservers } from './Nameservers';
import { Groups } from './Groups';
import { Profile } from './Profile';
import { Users } from './Users';

const NAV = [
  { href: '#/zones', label: 'Zones', prefix: '/zones' },
  { href: '#/groups', label: 'Groups', prefix: '/groups' },
  { href: '#/users', label: 'Users', prefix: '/users' },
  { href: '#/import', label: 'Import', prefix: '/import' },
  { href: '#/nameservers', label: 'Nameservers', prefix: '/nameservers' },
  { href: '#/tokens', label: 'API tokens', prefix: '/tokens' },
  { href: '#/profile', label: 'Profile', prefix: '/profile' },
];

export function App() {
  const [login, setLogin] = useState<Login | null | undefined>();
  const [expired, setExpired] = useState(false);
  const route = useRoute();

  useEffect(() => {
    whenSessionEnds(() => setExpired(true));
    requestJson<Login>('session').then(setLogin, (err: unknown) => {
      if (err instanceof ApiError && err.status === 401) setLogin(null);
      else setLogin(null);
    });
  }, []);

  useEffect(() => {
    document.getElementById('kz-main')?.focus({ preventScroll: true });
  }, [route]);

  if (login === undefined) return <p role="status" className="kz-main">Loading…</p>;
  if (login === null) {
    return (
      <Shell product="Keyzone DNS" narrow>
        <Card title="Sign in" headingLevel={1}>
          <SignInForm onSignedIn={setLogin} />
        </Card>
      </Shell>
    );
  }

  async function signOut() {
    await api('session', { method: 'DELETE' }).catch(() => undefined);
    setLogin(null);
    navigate('/zones');
  }

  const nav = NAV.map((link) => ({ href: link.href, label: link.label, current: route.startsWith(link.prefix) }));
  const zoneMatch = /^\/zones\/(\d+)(?:\/(\w+))?$/.exec(route);
  return (
    <Shell
      product="Keyzone DNS"
      nav={nav}
      actions={
        <>
          <span className="kz-hint">{login.user.username}@{login.group.name}</span>
          <Button variant="secondary" onClick={() => void signOut()}>Sign out</Button>
        </>
      }
    >
      {zoneMatch ? (
        <ZoneView key={zoneMatch[1]} zoneId={Number(zoneMatch[1])} />
      ) : route.startsWith('/import') ? (
        <ImportZone gid={login.group.id} userId={login.user.id} />
      ) : route.startsWith('/groups') ? (
        <Groups groupId={login.group.id} selected={Number(new URLSearchParams(route.split('?')[1] ?? '').get('gid')) || undefined} />
      ) : route.startsWith('/users') ? (
        <Users key={route} gid={Number(new URLSearchParams(route.split('?')[1] ?? '').get('gid')) || login.group.id} me={login.user.id} />
      ) : route.startsWith('/profile') ? (
        <Profile userId={login.user.id} />
      ) : route.startsWith('/nameservers') ? (
        <Nameservers />
      ) : route.startsWith('/tokens') ? (
        <Tokens userId={login.user.id} />
      ) : (
        <Zones key={route} gid={Number(new URLSearchParams(route.split('?')[1] ?? '').get('gid')) || undefined} />
      )}
      <SessionEnded open={expired} onSignedIn={(next) => { setLogin(next); setExpired(false); }} />
    </Shell>
  );
}

/** The sign-in again, in a modal over the screen, when a request found the session gone. */
function SessionEnded(props: { open: boolean; onSignedIn(login: Login): void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) dialog.showModal();
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  return (
    <dialog ref={ref} className="dns-signin-dialog kz-stack" aria-labelledby="dns-signin-again" onCancel={(e) => e.preventDefault()}>
      <h2 id="dns-signin-again">Sign in again</h2>
      {props.open && <SignInForm expired onSignedIn={props.onSignedIn} />}
    </dialog>
  );
}
