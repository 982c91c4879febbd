// WebAuthn: the relying party (WEBAUTHN_RP_ID, _RP_DISPLAY_NAME, _RP_ORIGINS), the WebAuthn MFA factor (GoTrue's
// MFA_WEB_AUTHN_ENROLL_ENABLED / _VERIFY_ENABLED, off by default) and passkey sign-in (PASSKEY_ENABLED, a Keyzone
// extension, off by default). Any of them on needs the relying party: its ID is the site's registrable domain
// (e.g. example.com), and every origin a browser may use it from is listed; browsers check the ID against the
// origin, the server checks the origin the browser reports against the list.
import type { EnvReader } from './env-reader';
import type { WebAuthnConfig } from './schema';

const HOST = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value.replace(/\/$/, '');
  } catch {
    return false;
  }
}

export function readWebAuthn(r: EnvReader): WebAuthnConfig {
  const mfaEnroll = r.bool('MFA_WEB_AUTHN_ENROLL_ENABLED') ?? false;
  const mfaVerify = r.bool('MFA_WEB_AUTHN_VERIFY_ENABLED') ?? false;
  const passkeys = r.bool('PASSKEY_ENABLED') ?? false;
  const rpId = r.read('WEBAUTHN_RP_ID', 'a host name (the registrable domain, e.g. example.com; no scheme or port)', (raw) => {
    const host = raw.trim().toLowerCase();
    return HOST.test(host) ? host : undefined;
  });
  const origins = r.read('WEBAUTHN_RP_ORIGINS', 'a comma-separated list of origins (https://app.example.com, no path)', (raw) => {
    const list = raw.split(',').map((o) => o.trim()).filter(Boolean);
    return list.length > 0 && list.every(isOrigin) ? list.map((o) => o.replace(/\/$/, '')) : undefined;
  }) ?? [];
  if (mfaEnroll || mfaVerify || passkeys) {
    const by = [mfaEnroll && 'MFA_WEB_AUTHN_ENROLL_ENABLED', mfaVerify && 'MFA_WEB_AUTHN_VERIFY_ENABLED', passkeys && 'PASSKEY_ENABLED']
      .filter(Boolean).map((n) => r.display(n as string)).join(' / ');
    r.requireWhen(['WEBAUTHN_RP_ID', 'WEBAUTHN_RP_ORIGINS'], `${by} is on`);
  }
  if (rpId && origins.length > 0) {
    for (const origin of origins) {
      const host = new URL(origin).hostname;
      if (host !== rpId && !host.endsWith(`.${rpId}`)) {
        r.problem(`${r.display('WEBAUTHN_RP_ORIGINS')}: ${origin} is not on ${rpId} (${r.display('WEBAUTHN_RP_ID')}), so no browser would use the credentials there`);
      }
    }
  }
  return {
    rpId: rpId ?? '',
    rpDisplayName: r.string('WEBAUTHN_RP_DISPLAY_NAME')?.trim() || rpId || 'Keyzone',
    rpOrigins: origins,
    mfaEnrollEnabled: mfaEnroll,
    mfaVerifyEnabled: mfaVerify,
    passkeyEnabled: passkeys,
  };
}
