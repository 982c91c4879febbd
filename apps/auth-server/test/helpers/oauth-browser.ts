// The browser's part of an external sign-in, without a browser: follow /authorize to the provider, let the
// provider redirect back, and deliver that redirect to this server's /callback (the provider knows the
// server by its configured REDIRECT_URI, so only the path and query are carried over).

export interface BrowserResult {
  /** Where /authorize sent the browser (the provider's authorization URL). */
  authorizeUrl: URL;
  /** The provider's redirect back (to REDIRECT_URI) with code and state, or an error. */
  providerRedirect: URL;
  /** Where /callback sent the browser at the end. */
  location: string;
  /** The fragment's parameters (implicit flow, errors). */
  fragment: Record<string, string>;
  /** The query's parameters (PKCE code, errors). */
  query: Record<string, string>;
  /** The Cookie header the browser sent to /callback (the flow's binding cookie). */
  cookies: string;
}

async function redirectOf(url: string, init: RequestInit = {}): Promise<string> {
  const res = await fetch(url, { ...init, redirect: 'manual' });
  const location = res.headers.get('location');
  if (res.status < 300 || res.status >= 400 || !location) throw new Error(`expected a redirect from ${url}, got ${res.status}: ${await res.text()}`);
  return location;
}

export async function deliverToCallback(serverUrl: string, providerRedirect: URL, init: RequestInit = {}): Promise<string> {
  return redirectOf(`${serverUrl}/callback${init.method === 'POST' ? '' : providerRedirect.search}`, init);
}

export function parseLocation(location: string): { fragment: Record<string, string>; query: Record<string, string> } {
  const url = new URL(location);
  return { fragment: Object.fromEntries(new URLSearchParams(url.hash.slice(1))), query: Object.fromEntries(url.searchParams) };
}

/** GET <server>/authorize?<params> through the provider back to /callback. */
export async function signInThroughProvider(serverUrl: string, params: Record<string, string>, init: { token?: string } = {}): Promise<BrowserResult> {
  let authorizeUrl: URL;
  let cookies = '';
  if (init.token) {
    // Manual linking: auth-js asks for the URL with skip_http_redirect=true, then opens it.
    const res = await fetch(`${serverUrl}/user/identities/authorize?${new URLSearchParams({ ...params, skip_http_redirect: 'true' })}`, {
      headers: { authorization: `Bearer ${init.token}` },
    });
    const body = (await res.json()) as { url?: string };
    if (res.status !== 200 || !body.url) throw new Error(`linking authorize: ${res.status} ${JSON.stringify(body)}`);
    authorizeUrl = new URL(body.url);
  } else {
    // The browser keeps the cookie /authorize sets (the flow is bound to it) and brings it back to /callback.
    const res = await fetch(`${serverUrl}/authorize?${new URLSearchParams(params)}`, { redirect: 'manual' });
    const location = res.headers.get('location');
    if (res.status !== 302 || !location) throw new Error(`expected a redirect from /authorize, got ${res.status}: ${await res.text()}`);
    authorizeUrl = new URL(location);
    cookies = cookieOf(res);
  }
  const providerRedirect = new URL(await redirectOf(authorizeUrl.toString()));
  const location = await deliverToCallback(serverUrl, providerRedirect, cookies ? { headers: { cookie: cookies } } : {});
  return { authorizeUrl, providerRedirect, location, cookies, ...parseLocation(location) };
}

/** The flow cookie a response set, as a Cookie header value (what the browser sends back). */
export function cookieOf(res: Response): string {
  return res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
}
