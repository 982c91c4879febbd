// The console: settings first (does it need AAL2?), then sign-in, then a check that the admin API takes this
// user's token (their role is an admin role), then the screens.
import { useCallback, useEffect, useMemo, useState } from 'react';
import { ApiError, Button, ErrorSummary, Shell, type NavLink } from '@keyzone/ui/browser';
import { adminApi, claimsOf, consoleSettings, type Api, type ConsoleSettings, type Tokens } from './session';
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

export function App() {
  const [settings, setSettings] = useState<ConsoleSettings | undefined>();
  const [settingsError, setSettingsError] = useState<Error | undefined>();
  const [tokens, setTokens] = useState<Tokens | undefined>();
  const [refused, setRefused] = useState<string | undefined>();
  const [admitted, setAdmitted] = useState(false);
  const route = useRoute();

  useEffect(() => {
    consoleSettings().then(setSettings, setSettingsError);
  }, []);

  const signOut = useCallback((reason?: string) => {
    setTokens(undefined);
    setAdmitted(false);
    setRefused(reason);
  }, []);
  const api: Api | undefined = useMemo(
    () => (tokens ? adminApi(tokens, () => signOut('Your session has ended. Sign in again.')) : undefined),
    [tokens, signOut],
  );

  useEffect(() => {
    if (!api) return;
    api('/admin/users?limit=1').then(
      () => setAdmitted(true),
      (cause: Error) => signOut(cause instanceof ApiError && cause.status === 403 ? 'This account may not use the admin console: its role is not an admin role.' : cause.message),
    );
  }, [api, signOut]);

  if (settingsError) return <Shell product="Keyzone Auth admin"><ErrorSummary error={settingsError} /></Shell>;
  if (!settings) return null;
  if (!tokens || !api) {
    return <SignIn requireAal2={settings.require_aal2} refused={refused} onSignedIn={(t) => { setRefused(undefined); setTokens(t); }} />;
  }
  if (!admitted) return <Shell product="Keyzone Auth admin"><p role="status">Checking your access…</p></Shell>;

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
