// SAML 2.0 single sign-on (GoTrue's SAML_* settings). The service provider's key is RSA (at least 2048 bits), given
// as GoTrue takes it (base64 of the DER PKCS#1 key) or as PEM (PKCS#1 or PKCS#8); it signs the AuthnRequests and,
// with SAML_ALLOW_ENCRYPTED_ASSERTIONS, decrypts assertions. Enabling SAML without one stops the start.
import { createPrivateKey, type KeyObject } from 'node:crypto';
import type { EnvReader } from './env-reader';
import { Invalid } from './env-reader';
import type { SamlConfig } from './schema';

function parseRsaKey(raw: string): KeyObject | Invalid | undefined {
  const text = raw.trim().replace(/\\n/g, '\n');
  let key: KeyObject | undefined;
  try {
    if (text.includes('-----BEGIN')) key = createPrivateKey(text);
    else {
      const der = Buffer.from(text.replace(/\s+/g, ''), 'base64');
      for (const type of ['pkcs1', 'pkcs8'] as const) {
        try {
          key = createPrivateKey({ key: der, format: 'der', type });
          break;
        } catch {
          // the other encoding
        }
      }
    }
  } catch {
    return undefined;
  }
  if (!key) return undefined;
  if (key.asymmetricKeyType !== 'rsa') return new Invalid('an RSA private key (SAML signatures here are RSA-SHA256)');
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < 2048) return new Invalid(`an RSA key of at least 2048 bits (this one has ${bits})`);
  return key;
}

export function readSaml(r: EnvReader, apiExternalUrl: string): SamlConfig {
  const enabled = r.bool('SAML_ENABLED') ?? false;
  const key = r.read('SAML_PRIVATE_KEY', 'an RSA private key: base64 of its DER (PKCS#1, as GoTrue) or PEM', parseRsaKey);
  if (enabled && !key && !r.isSet('SAML_PRIVATE_KEY')) {
    r.problem(`${r.display('SAML_PRIVATE_KEY')}: required when ${r.display('SAML_ENABLED')}=true ` +
      '(e.g. `openssl genrsa 2048 | openssl rsa -outform DER -traditional | base64 -w0`)');
  }
  const validity = r.duration('SAML_RELAY_STATE_VALIDITY_PERIOD') ?? 120;
  if (validity === 0) r.problem(`${r.display('SAML_RELAY_STATE_VALIDITY_PERIOD')}: expected a duration above 0 (e.g. 2m)`);
  return {
    enabled,
    privateKeyPem: key ? (key.export({ format: 'pem', type: 'pkcs8' }) as string) : undefined,
    allowEncryptedAssertions: r.bool('SAML_ALLOW_ENCRYPTED_ASSERTIONS') ?? false,
    relayStateValiditySeconds: validity || 120,
    externalUrl: (r.url('SAML_EXTERNAL_URL') ?? apiExternalUrl).replace(/\/+$/, ''),
    rateLimitAssertion: r.int('SAML_RATE_LIMIT_ASSERTION', { min: 0 }) ?? 15,
    metadataRefreshSeconds: r.duration('SAML_METADATA_REFRESH_PERIOD') ?? 86400,
  };
}
