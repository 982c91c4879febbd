// Keyzone as a SAML service provider: its entity ID and assertion consumer URL (under SAML_EXTERNAL_URL, by default
// API_EXTERNAL_URL), its certificate and metadata, and the @node-saml/node-saml instance that builds AuthnRequests and
// checks an IdP's answers (signatures, canonicalisation, audience, times, InResponseTo).
import { createHash, createPublicKey } from 'node:crypto';
import type https from 'node:https';
import { generateServiceProviderMetadata, SAML, ValidateInResponseTo, type CacheProvider } from '@node-saml/node-saml';
import forge from 'node-forge';
import type { SamlConfig } from '@keyzone/config';
import { NameIdFormat } from './attribute-mapping';
import type { IdpMetadata } from './idp-metadata';

/** How far the IdP's clock may be from ours for NotBefore / NotOnOrAfter. */
export const CLOCK_SKEW_MS = 60_000;

export class ServiceProvider {
  readonly entityId: string;
  readonly acsUrl: string;
  private certificate: string | undefined;

  constructor(
    readonly config: SamlConfig,
    /** Outgoing HTTPS for metadata_url (tests pass one that trusts their CA). */
    readonly httpsAgent?: https.Agent,
  ) {
    this.entityId = `${config.externalUrl}/sso/saml/metadata`;
    this.acsUrl = `${config.externalUrl}/sso/saml/acs`;
  }

  private get keyPem(): string {
    if (!this.config.privateKeyPem) throw new Error('SAML is enabled without SAML_PRIVATE_KEY (the config check should have stopped the start)');
    return this.config.privateKeyPem;
  }

  /**
   * A self-signed certificate for the key, as GoTrue makes one. Every field is derived from the key, so every
   * instance serves the same certificate (RSA PKCS#1 v1.5 signatures are deterministic).
   */
  certificatePem(): string {
    if (this.certificate) return this.certificate;
    const key = forge.pki.privateKeyFromPem(this.keyPem) as forge.pki.rsa.PrivateKey;
    const cert = forge.pki.createCertificate();
    cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
    const spki = createPublicKey(this.keyPem).export({ format: 'der', type: 'spki' });
    // Positive serial (leading 0x01): 16 bytes of the key's hash.
    cert.serialNumber = `01${createHash('sha256').update(spki).digest('hex').slice(0, 30)}`;
    cert.validity.notBefore = new Date('2000-01-01T00:00:00Z');
    cert.validity.notAfter = new Date('2049-12-31T23:59:59Z');
    const name = [{ name: 'commonName', value: new URL(this.config.externalUrl).hostname }];
    cert.setSubject(name);
    cert.setIssuer(name);
    cert.sign(key, forge.md.sha256.create());
    this.certificate = forge.pki.certificateToPem(cert);
    return this.certificate;
  }

  metadataXml(): string {
    const cert = this.certificatePem();
    return generateServiceProviderMetadata({
      issuer: this.entityId,
      callbackUrl: this.acsUrl,
      privateKey: this.keyPem,
      publicCerts: cert,
      decryptionPvk: this.config.allowEncryptedAssertions ? this.keyPem : undefined,
      decryptionCert: this.config.allowEncryptedAssertions ? cert : undefined,
      identifierFormat: NameIdFormat.persistent,
      wantAssertionsSigned: true,
      signatureAlgorithm: 'sha256',
      // A fixed document ID: two instances serve the same bytes.
      generateUniqueId: () => `_${createHash('sha256').update(this.entityId).digest('hex').slice(0, 40)}`,
    });
  }

  /**
   * node-saml for one IdP. `requestIds` is the store of AuthnRequest IDs it writes to when building a request and
   * reads when an answer says InResponseTo: here always one ID, the relay state's.
   */
  samlFor(idp: IdpMetadata, options: { nameIdFormat: string | null; requestIds: CacheProvider; requestIdLifetimeMs: number; newId?: () => string }): SAML {
    return new SAML({
      entryPoint: idp.ssoUrl,
      issuer: this.entityId,
      callbackUrl: this.acsUrl,
      audience: this.entityId,
      idpCert: idp.certs,
      privateKey: this.keyPem,
      signatureAlgorithm: 'sha256',
      decryptionPvk: this.config.allowEncryptedAssertions ? this.keyPem : undefined,
      identifierFormat: options.nameIdFormat ?? NameIdFormat.persistent,
      // A signature on the Response or on the Assertion; node-saml refuses an answer with neither.
      wantAssertionsSigned: false,
      wantAuthnResponseSigned: false,
      acceptedClockSkewMs: CLOCK_SKEW_MS,
      validateInResponseTo: ValidateInResponseTo.always,
      requestIdExpirationPeriodMs: options.requestIdLifetimeMs,
      cacheProvider: options.requestIds,
      disableRequestedAuthnContext: true,
      ...(options.newId ? { generateUniqueId: options.newId } : {}),
    });
  }
}

/** A request-ID store holding the one ID of a sign-in (node-saml's CacheProvider). */
export class OneRequestId implements CacheProvider {
  constructor(public id?: string, private readonly createdAt: Date = new Date()) {}

  async saveAsync(key: string, value: string) {
    this.id = key;
    return { value, createdAt: this.createdAt.getTime() };
  }

  async getAsync(key: string) {
    return key === this.id ? this.createdAt.toISOString() : null;
  }

  async removeAsync(key: string | null) {
    return key;
  }
}
