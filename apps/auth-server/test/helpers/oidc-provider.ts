// Starts helpers/oidc-provider-process.mjs (oauth2-mock-server) in a child process and waits for its issuer URL.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';

export interface OidcProvider {
  url: string;
  /** An ID token (and access token) for `claims`, issued to `clientId` through the provider's own code flow. */
  issueTokens(clientId: string, claims: Record<string, unknown>, nonce?: string): Promise<{ idToken: string; accessToken: string }>;
  close(): Promise<void>;
}

/** `tls`: serve HTTPS with this key and certificate (files); its issuer is then https://localhost:<port>. */
export async function startOidcProvider(options: { tls?: { keyPath: string; certPath: string } } = {}): Promise<OidcProvider> {
  const args = options.tls ? [options.tls.keyPath, options.tls.certPath] : [];
  const child: ChildProcess = spawn(process.execPath, [path.join(__dirname, 'oidc-provider-process.mjs'), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve((JSON.parse(line) as { url: string }).url));
    child.once('exit', (code) => reject(new Error(`the OIDC provider exited with ${code}`)));
  });
  return {
    url,
    async issueTokens(clientId, claims, nonce) {
      const authorize = new URL(`${url}/authorize`);
      const params: Record<string, string> = { client_id: clientId, redirect_uri: 'http://127.0.0.1/app', response_type: 'code', state: 's', test_claims: JSON.stringify(claims) };
      if (nonce) params.nonce = nonce;
      for (const [name, value] of Object.entries(params)) authorize.searchParams.set(name, value);
      const consent = await fetch(authorize, { redirect: 'manual' });
      const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
      const token = await fetch(`${url}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, client_id: clientId, redirect_uri: 'http://127.0.0.1/app' }),
      });
      const body = (await token.json()) as { id_token: string; access_token: string };
      return { idToken: body.id_token, accessToken: body.access_token };
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
