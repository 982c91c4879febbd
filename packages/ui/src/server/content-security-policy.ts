// One policy for every screen Keyzone serves: everything from this origin, nothing inline, nothing framed. The
// bundles are built with no inline script or style, so 'unsafe-inline' is never needed; React sets styles through
// the CSSOM, which style-src does not govern.
const BASE_DIRECTIVES: Readonly<Record<string, string>> = Object.freeze({
  'default-src': "'self'",
  'script-src': "'self'",
  'style-src': "'self'",
  'img-src': "'self' data:",
  'font-src': "'self'",
  'connect-src': "'self'",
  'object-src': "'none'",
  'base-uri': "'none'",
  'frame-ancestors': "'none'",
  'form-action': "'self'",
});

/** The Content-Security-Policy header value; `extra` adds sources to a directive (e.g. an image origin a client registered). */
export function contentSecurityPolicy(extra: Readonly<Record<string, string>> = {}): string {
  const merged: Record<string, string> = { ...BASE_DIRECTIVES };
  for (const [directive, sources] of Object.entries(extra)) {
    merged[directive] = merged[directive] ? `${merged[directive]} ${sources}` : sources;
  }
  return Object.entries(merged).map(([directive, sources]) => `${directive} ${sources}`).join('; ');
}

/** Headers every page (HTML) answer carries besides its CSP. */
export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'x-frame-options': 'DENY',
});
