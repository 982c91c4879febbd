// The console: settings first (does it need AAL2?), then sign-in, then a check that the admin API takes this
// user's token (their role is an admin role), then the screens.
import { useCallback, useEffect, useMemo, useState } from 'react';
import { ApiError, Button, ErrorSummary, Shell, type NavLink } from '@keyzone/ui/browser';
import { accessToken, adoptSession, sessionUser, signOut as endSession } from '../../shared/session';
import { claimsOf, consoleSettings, sessionApi, type Api, type ConsoleSettings, type Tokens } from './session';
import { BASE, navigate, useRoute } from './router';
import { SignIn } from './SignIn';
import { UsersScreen } from './Users';
import { UserScreen } from './User';
import { SamlScreen } from './Saml';
import { CustomProvidersScreen } from './CustomProviders';
import { OAuthClientsScreen } from './OAuthClients';
import { AuditScreen } from './Audit';
import { SettingsScreen } from './Settings';

const SCREENS = [
  { path: '/', label: 'Users' },
  { path: '/sso', label: 'SSO (SAML)' },
  { path: '/custom-providers', label: 'Custom providers' },
  { path: '/oauth-clients', label: 'OAuth clients' },
  { path: '/audit', label: 'Audit log' },
  { path: '/settings', label: 'Settings' },
] as const;

type Phase =
  | { kind: 'loading' }
  | { kind: 'signed-out'; refused?: string }
  /** Signed in below AAL2 where the console needs it: the second factor is asked for. */
  | { kind: 'step-up'; pending: Tokens }
  | { kind: 'checking'; token: string }
  | { kind: 'admitted'; token: string };

export function App() {
  const [settings, setSettings] = useState<ConsoleSettings | undefined>();
  const [settingsError, setSettingsError] = useState<Error | undefined>();
  const [phase, setPhase] = useState<Phase>({ kind: 'loading' });
  const route = useRoute();

  const signOut = useCallback(() => {
    setPhase({ kind: 'signed-out' });
    void endSession().catch(() => undefined);
  }, []);
  // A refusal leaves the session alone: it may be the user's hosted sign-in, good for everything but this console.
  const refuse = useCallback((refused: string) => setPhase({ kind: 'signed-out', refused }), []);
  const api: Api = useMemo(() => sessionApi(() => setPhase({ kind: 'signed-out', refused: 'Your session has ended. Sign in again.' })), []);

  /** Where a session (an access token) leads: the second factor first if needed, then the admin check. */
  const enter = useCallback((token: string, user: Tokens['user'], requireAal2: boolean) => {
    if (requireAal2 && claimsOf(token).aal !== 'aal2') setPhase({ kind: 'step-up', pending: { access_token: token, user } });
    else setPhase({ kind: 'checking', token });
  }, []);

  useEffect(() => {
    consoleSettings().then(async (loaded) => {
      setSettings(loaded);
      // A session the screens already hold (this console's or the hosted sign-in page's cookie).
      const token = await accessToken().catch(() => undefined);
      const user = sessionUser();
      if (token && user) enter(token, user, loaded.require_aal2);
      else setPhase({ kind: 'signed-out' });
    }, setSettingsError);
  }, [enter]);

  const checkingToken = phase.kind === 'checking' ? phase.token : undefined;
  useEffect(() => {
    if (!checkingToken) return;
    api('/admin/users?limit=1').then(
      () => setPhase({ kind: 'admitted', token: checkingToken }),
      (cause: Error) => {
        // The server's word on AAL wins over the token's claim (a factor removed since it was minted).
        const user = sessionUser();
        if (cause instanceof ApiError && cause.code === 'insufficient_aal' && user) setPhase({ kind: 'step-up', pending: { access_token: checkingToken, user } });
        else refuse(cause instanceof ApiError && cause.status === 403 ? 'This account may not use the admin console: its role is not an admin role.' : cause.message);
      },
    );
  }, [api, checkingToken, refuse]);

  if (settingsError) return <Shell product="Keyzone Auth admin"><ErrorSummary error={settingsError} /></Shell>;
  if (!settings || phase.kind === 'loading') return null;
  if (phase.kind === 'signed-out' || phase.kind === 'step-up') {
    return (
      <SignIn
        requireAal2={settings.require_aal2}
        refused={phase.kind === 'signed-out' ? phase.refused : undefined}
        pending={phase.kind === 'step-up' ? phase.pending : undefined}
        onSignedIn={async (tokens) => {
          // The refresh token goes to the HttpOnly cookie at once; the page keeps the access token only.
          const session = tokens.refresh_token ? await adoptSession({ refresh_token: tokens.refresh_token }) : undefined;
          setPhase({ kind: 'checking', token: session?.access_token ?? tokens.access_token });
        }}
      />
    );
  }
  if (phase.kind !== 'admitted') return <Shell product="Keyzone Auth admin"><p role="status">Checking your access…</p></Shell>;

  const tokens = { access_token: phase.token };
  const me = claimsOf(tokens.access_token);
  const top = `/${route.split('/')[1] ?? ''}`;
  const nav: NavLink[] = SCREENS.map((s) => ({
    href: `${BASE}${s.path}`,
    label: s.label,
    current: s.path === top || (s.path === '/' && top === '/users'),
  }));
  let screen;
  const userMatch = /^\/users\/([^/]+)$/.exec(route);
  if (userMatch) screen = <UserScreen api={api} userId={decodeURIComponent(userMatch[1]!)} />;
  else if (route === '/sso') screen = <SamlScreen api={api} />;
  else if (route === '/custom-providers') screen = <CustomProvidersScreen api={api} />;
  else if (route === '/oauth-clients') screen = <OAuthClientsScreen api={api} />;
  else if (route === '/audit') screen = <AuditScreen api={api} />;
  else if (route === '/settings') screen = <SettingsScreen api={api} />;
  else screen = <UsersScreen api={api} />;

  return (
    <div
      onClick={(event) => {
        // Navigation links stay in the page.
        const anchor = (event.target as HTMLElement).closest('a');
        const href = anchor?.getAttribute('href');
        if (!anchor || !href?.startsWith(`${BASE}/`) || event.metaKey || event.ctrlKey || event.shiftKey) return;
        event.preventDefault();
        navigate(href.slice(BASE.length));
      }}
    >
      <Shell
        product="Keyzone Auth admin"
        nav={nav}
        actions={<><span className="kz-hint">{me.email ?? me.sub}</span><Button variant="secondary" onClick={() => signOut()}>Sign out</Button></>}
      >
        {screen}
      </Shell>
    </div>
  );
}
