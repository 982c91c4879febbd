// The OAuth consent screen: which app asks, for what (the scopes in words), approve or deny. Signed-out visitors go
// to sign-in first and come back; a remembered consent covering the scopes goes straight back to the app.
import { useEffect, useState } from 'react';
import { Button, Card, ErrorSummary } from '@keyzone/ui/browser';
import { asUser, accessToken } from '../../shared/session';

interface Details {
  authorization_id: string;
  redirect_uri: string;
  client: { id: string; name?: string; uri?: string; logo_uri?: string };
  user: { id: string; email?: string };
  scope: string;
}

const SCOPE_WORDS: Record<string, string> = {
  openid: 'Confirm who you are (your account id)',
  email: 'See your e-mail address',
  profile: 'See your name and profile picture',
  phone: 'See your phone number',
};

export function ConsentPage() {
  const id = new URLSearchParams(location.search).get('authorization_id') ?? '';
  const [details, setDetails] = useState<Details>();
  const [error, setError] = useState<Error>();
  const [busy, setBusy] = useState(false);
  const path = `/oauth/authorizations/${encodeURIComponent(id)}`;

  useEffect(() => {
    void (async () => {
      try {
        if (!(await accessToken())) {
          location.assign(`sign-in?authorization_id=${encodeURIComponent(id)}`);
          return;
        }
        const answer = await asUser<Details | { redirect_url: string }>(path);
        if ('redirect_url' in answer) location.assign(answer.redirect_url);
        else setDetails(answer);
      } catch (err) {
        setError(err as Error);
      }
    })();
  }, []);

  const decide = async (action: 'approve' | 'deny') => {
    setBusy(true);
    setError(undefined);
    try {
      const answer = await asUser<{ redirect_url: string }>(`${path}/consent`, { body: { action } });
      location.assign(answer.redirect_url);
    } catch (err) {
      setError(err as Error);
      setBusy(false);
    }
  };

  if (!details) {
    return (
      <Card title="Allow access" headingLevel={1}>
        {error ? <ErrorSummary error={error} /> : <p role="status">Loading…</p>}
      </Card>
    );
  }
  const name = details.client.name ?? details.client.id;
  const logo = details.client.logo_uri?.startsWith('https:') ? details.client.logo_uri : undefined;
  return (
    <Card title={`Allow ${name} to use your account?`} headingLevel={1}>
      <div className="hz-client">
        {logo && <img className="hz-logo" src={logo} alt="" referrerPolicy="no-referrer" />}
        <p><strong>{name}</strong>{details.client.uri && <> (<a href={details.client.uri} rel="noreferrer noopener">{new URL(details.client.uri).host}</a>)</>} asks to:</p>
      </div>
      <ul className="hz-scopes">
        {details.scope.split(' ').filter(Boolean).map((scope) => <li key={scope}>{SCOPE_WORDS[scope] ?? scope}</li>)}
      </ul>
      <p className="kz-hint">Signed in as {details.user.email ?? details.user.id}. You will be sent to {new URL(details.redirect_uri).origin}.</p>
      <ErrorSummary error={error} />
      <div className="hz-actions">
        <Button busy={busy} onClick={() => void decide('approve')}>Allow</Button>
        <Button variant="secondary" busy={busy} onClick={() => void decide('deny')}>Deny</Button>
      </div>
    </Card>
  );
}
