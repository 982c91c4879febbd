// The auth server's API sits beside its pages: a page at <base>/hosted/<page> talks to <base>/<endpoint>, whether
// the server is mounted at / or under /auth/v1 (supabase-js's layout).
const SCREENS = ['/hosted/', '/admin/console/'];

export function apiBase(pathname: string = location.pathname): string {
  for (const marker of SCREENS) {
    const at = pathname.lastIndexOf(marker);
    if (at >= 0) return pathname.slice(0, at);
  }
  return '';
}

export function apiUrl(endpoint: string): string {
  return `${apiBase()}${endpoint}`;
}
