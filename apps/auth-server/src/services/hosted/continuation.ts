// Where the hosted sign-in page may send the browser once signed in: a path on the auth server itself (the consent
// page, the admin console) or an address the redirect allow-list accepts (URI_ALLOW_LIST, SITE_URL). Anything else
// is dropped, so the page can never be turned into an open redirect.
import type { AuthConfig } from '@keyzone/config';
import { redirectPolicyFor } from '../platform/redirects';

/** `requested` resolved against API_EXTERNAL_URL when it is allowed; undefined otherwise. */
export function allowedContinuation(config: Pick<AuthConfig, 'api' | 'siteUrl' | 'uriAllowList'>, requested: string | undefined): string | undefined {
  if (!requested) return undefined;
  // eslint-disable-next-line no-control-regex
  if (/[\s\\\u0000-\u001f\u007f]/.test(requested)) return undefined;
  const own = new URL(config.api.externalUrl);
  let url: URL;
  try {
    url = new URL(requested, own);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username !== '' || url.password !== '') return undefined;
  // A path of the auth server itself (a relative request, or the exact own origin).
  if (url.origin === own.origin && (requested.startsWith('/') ? !requested.startsWith('//') : requested.startsWith(own.origin + '/'))) {
    return url.toString();
  }
  return redirectPolicyFor(config).isAllowed(requested) ? requested : undefined;
}
