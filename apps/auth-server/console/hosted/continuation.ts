// Where a signed-in page goes next: the consent screen of the OAuth authorization that sent the browser here, the
// redirect_to the server accepted (POST /hosted/session checks it against the allow-list), or the landing page.
export function continuationQuery(): string {
  const query = new URLSearchParams(location.search);
  const keep = new URLSearchParams();
  for (const name of ['authorization_id', 'redirect_to']) {
    const value = query.get(name);
    if (value) keep.set(name, value);
  }
  const text = keep.toString();
  return text ? `?${text}` : '';
}

export function requestedRedirect(): string | undefined {
  return new URLSearchParams(location.search).get('redirect_to') ?? undefined;
}

export function continueAfterSignIn(continueTo: string | null | undefined): void {
  const authorization = new URLSearchParams(location.search).get('authorization_id');
  if (authorization) location.assign(`consent?authorization_id=${encodeURIComponent(authorization)}`);
  else if (continueTo) location.assign(continueTo);
  else location.assign('./');
}
