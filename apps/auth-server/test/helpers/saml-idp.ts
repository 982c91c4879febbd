// A SAML 2.0 identity provider on 127.0.0.1 for the SSO tests: it serves its metadata, takes AuthnRequests on the
// HTTP-Redirect binding (checking the service provider's signature on them), and answers with a Response signed by
// xml-crypto, posted back as the HTTP-POST binding's form. Tests shape the answer (who signs what, times, audience,
// recipient) to play the attacks an IdP-facing endpoint must refuse.
import { createHash, createVerify, generateKeyPairSync, randomUUID, X509Certificate } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { inflateRawSync } from 'node:zlib';
import forge from 'node-forge';
import { SignedXml } from 'xml-crypto';
import * as xmlenc from 'xml-encryption';

export interface IdpUser {
  nameId: string;
  nameIdFormat?: string;
  /** Attribute name → values. */
  attributes?: Record<string, string[]>;
}

export interface ResponseOptions {
  /** Which element carries the IdP's signature (default the assertion). */
  sign?: 'assertion' | 'response' | 'both' | 'none';
  /** Sign with this key/cert instead of the IdP's (an impostor). */
  signer?: { keyPem: string; certPem: string };
  audience?: string;
  destination?: string | null;
  recipient?: string;
  issuer?: string;
  /** Seconds from now for NotOnOrAfter (default 300) and NotBefore (default -60). */
  notOnOrAfter?: number;
  notBefore?: number;
  assertionId?: string;
  /** Put InResponseTo on SubjectConfirmationData too (default true). */
  confirmationInResponseTo?: boolean;
  sessionNotOnOrAfter?: number;
  /** Raw XML for the NameID's content (already escaped): for comment injection. */
  rawNameId?: string;
  /** Encrypt the (signed) assertion for the service provider holding this certificate. */
  encryptFor?: string;
}

export interface AuthnRequestInfo {
  id: string;
  acsUrl: string;
  issuer: string;
  relayState: string;
  /** The SP signed the redirect (SigAlg + Signature over the query) and the signature verified with `spCertPem`. */
  signatureValid: boolean | undefined;
}

export interface SamlIdp {
  url: string;
  entityId: string;
  certPem: string;
  keyPem: string;
  metadataXml(): string;
  /** The user the next browser visit signs in as. */
  signInAs(user: IdpUser): void;
  /** Where the SP's signature on AuthnRequests is checked (its metadata certificate). */
  trustServiceProvider(certPem: string): void;
  /** Reads an AuthnRequest redirect URL as the IdP would. */
  readRequest(url: string): AuthnRequestInfo;
  /** A base64 SAMLResponse answering `request` for `user`. */
  response(request: { id: string; acsUrl: string; audience: string }, user: IdpUser, options?: ResponseOptions): Promise<string>;
  /** Visits the redirect URL like a browser: the form the IdP would auto-post (action, SAMLResponse, RelayState). */
  visit(url: string): Promise<{ action: string; SAMLResponse: string; RelayState: string }>;
  close(): Promise<void>;
}

const escape = (value: string) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const iso = (secondsFromNow: number) => new Date(Date.now() + secondsFromNow * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** A fresh RSA key with a self-signed certificate. */
export function keyAndCertificate(commonName: string): { keyPem: string; certPem: string } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
  const key = forge.pki.privateKeyFromPem(keyPem) as forge.pki.rsa.PrivateKey;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  cert.serialNumber = `01${createHash('sha256').update(keyPem).digest('hex').slice(0, 16)}`;
  cert.validity.notBefore = new Date(Date.now() - 86_400_000);
  cert.validity.notAfter = new Date(Date.now() + 365 * 86_400_000);
  cert.setSubject([{ name: 'commonName', value: commonName }]);
  cert.setIssuer([{ name: 'commonName', value: commonName }]);
  cert.sign(key, forge.md.sha256.create());
  return { keyPem, certPem: forge.pki.certificateToPem(cert) };
}

/** XML Encryption of `xml` (AES-256-GCM, the key wrapped with RSA-OAEP) for the holder of `certPem`. */
function encrypt(xml: string, certPem: string): Promise<string> {
  const publicKey = new X509Certificate(certPem).publicKey.export({ format: 'pem', type: 'spki' }) as string;
  return new Promise((resolve, reject) => {
    xmlenc.encrypt(xml, {
      rsa_pub: publicKey, pem: certPem, encryptionAlgorithm: 'http://www.w3.org/2009/xmlenc11#aes256-gcm',
      keyEncryptionAlgorithm: 'http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p', keyEncryptionDigest: 'sha1',
    } as xmlenc.EncryptOptions, (err: Error | null, result?: string) => (err || !result ? reject(err ?? new Error('no result')) : resolve(result)));
  });
}

const certBody = (pem: string) => pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');

/** Signs the element with the given ID, the signature placed after its Issuer (where SAML wants it). */
export function signElement(xml: string, elementId: string, signer: { keyPem: string; certPem: string }): string {
  const sig = new SignedXml({
    privateKey: signer.keyPem,
    publicCert: signer.certPem,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  sig.addReference({
    xpath: `//*[@ID='${elementId}']`,
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
  });
  sig.computeSignature(xml, { prefix: 'ds', location: { reference: `//*[@ID='${elementId}']/*[local-name(.)='Issuer']`, action: 'after' } });
  return sig.getSignedXml();
}

export async function startSamlIdp(): Promise<SamlIdp> {
  const own = keyAndCertificate('idp.test');
  let current: IdpUser = { nameId: 'nobody' };
  let spCertPem: string | undefined;
  let url = '';
  let entityId = '';

  const metadataXml = () => `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${escape(entityId)}">
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol" WantAuthnRequestsSigned="true">
    <md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certBody(own.certPem)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:2.0:nameid-format:persistent</md:NameIDFormat>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${escape(url)}/sso-post"/>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${escape(url)}/sso"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;

  function readRequest(redirectUrl: string): AuthnRequestInfo {
    const parsed = new URL(redirectUrl);
    const encoded = parsed.searchParams.get('SAMLRequest') ?? '';
    const xml = inflateRawSync(Buffer.from(encoded, 'base64')).toString('utf8');
    const attr = (name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(xml)?.[1] ?? '';
    let signatureValid: boolean | undefined;
    const signature = parsed.searchParams.get('Signature');
    if (signature && spCertPem) {
      // The signed octets are the query's own encoding of SAMLRequest, RelayState, SigAlg, in that order.
      const raw = parsed.search.slice(1).split('&');
      const pick = (name: string) => raw.find((p) => p.startsWith(`${name}=`));
      const signed = ['SAMLRequest', 'RelayState', 'SigAlg'].map(pick).filter(Boolean).join('&');
      try {
        signatureValid = createVerify('RSA-SHA256').update(signed).verify(spCertPem, signature, 'base64');
      } catch {
        signatureValid = false;
      }
    }
    return {
      id: attr('ID'),
      acsUrl: attr('AssertionConsumerServiceURL'),
      issuer: /<(?:saml2?:)?Issuer[^>]*>([^<]*)</.exec(xml)?.[1] ?? '',
      relayState: parsed.searchParams.get('RelayState') ?? '',
      signatureValid,
    };
  }

  async function response(request: { id: string; acsUrl: string; audience: string }, user: IdpUser, options: ResponseOptions = {}): Promise<string> {
    const responseId = `_r${randomUUID()}`;
    const assertionId = options.assertionId ?? `_a${randomUUID()}`;
    const issuer = escape(options.issuer ?? entityId);
    const recipient = escape(options.recipient ?? request.acsUrl);
    const destination = options.destination === null ? '' : ` Destination="${escape(options.destination ?? request.acsUrl)}"`;
    const until = iso(options.notOnOrAfter ?? 300);
    const confirmationInResponseTo = options.confirmationInResponseTo === false ? '' : ` InResponseTo="${escape(request.id)}"`;
    const sessionEnd = options.sessionNotOnOrAfter === undefined ? '' : ` SessionNotOnOrAfter="${iso(options.sessionNotOnOrAfter)}"`;
    const attributes = Object.entries(user.attributes ?? {}).map(([name, values]) =>
      `<saml:Attribute Name="${escape(name)}">${values.map((v) => `<saml:AttributeValue>${escape(v)}</saml:AttributeValue>`).join('')}</saml:Attribute>`).join('');
    const assertion = `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${assertionId}" Version="2.0" IssueInstant="${iso(0)}">` +
      `<saml:Issuer>${issuer}</saml:Issuer>` +
      '<saml:Subject>' +
      `<saml:NameID Format="${escape(user.nameIdFormat ?? 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent')}">${options.rawNameId ?? escape(user.nameId)}</saml:NameID>` +
      `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData${confirmationInResponseTo} NotOnOrAfter="${until}" Recipient="${recipient}"/></saml:SubjectConfirmation>` +
      '</saml:Subject>' +
      `<saml:Conditions NotBefore="${iso(options.notBefore ?? -60)}" NotOnOrAfter="${until}"><saml:AudienceRestriction><saml:Audience>${escape(options.audience ?? request.audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
      `<saml:AuthnStatement AuthnInstant="${iso(0)}" SessionIndex="_s${randomUUID()}"${sessionEnd}><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
      (attributes ? `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>` : '') +
      '</saml:Assertion>';
    const sign = options.sign ?? 'assertion';
    const signer = options.signer ?? own;
    let signedAssertion = (sign === 'assertion' || sign === 'both' ? signElement(assertion, assertionId, signer) : assertion).replace(/^<\?xml[^>]*>/, '');
    if (options.encryptFor) signedAssertion = `<saml:EncryptedAssertion>${await encrypt(signedAssertion, options.encryptFor)}</saml:EncryptedAssertion>`;
    let xml = `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${responseId}" Version="2.0" IssueInstant="${iso(0)}"${destination} InResponseTo="${escape(request.id)}">` +
      `<saml:Issuer>${issuer}</saml:Issuer>` +
      '<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>' +
      signedAssertion +
      '</samlp:Response>';
    if (sign === 'response' || sign === 'both') xml = signElement(xml, responseId, signer);
    return Buffer.from(xml, 'utf8').toString('base64');
  }

  const server = http.createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', url).pathname;
    if (path === '/metadata') {
      res.writeHead(200, { 'content-type': 'application/samlmetadata+xml' }).end(metadataXml());
      return;
    }
    if (path === '/sso') {
      const request = readRequest(new URL(req.url ?? '/', url).toString());
      if (spCertPem && request.signatureValid !== true) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('AuthnRequest signature missing or invalid');
        return;
      }
      const samlResponse = await response({ id: request.id, acsUrl: request.acsUrl, audience: request.issuer }, current);
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html><body onload="document.forms[0].submit()">
<form method="post" action="${escape(request.acsUrl)}"><input type="hidden" name="SAMLResponse" value="${samlResponse}"><input type="hidden" name="RelayState" value="${escape(request.relayState)}"></form></body></html>`);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  entityId = `${url}/metadata`;

  return {
    url,
    entityId,
    certPem: own.certPem,
    keyPem: own.keyPem,
    metadataXml,
    signInAs: (user) => {
      current = user;
    },
    trustServiceProvider: (certPem) => {
      spCertPem = certPem;
    },
    readRequest,
    response,
    async visit(redirectUrl) {
      const page = await fetch(redirectUrl);
      const html = await page.text();
      if (page.status !== 200) throw new Error(`IdP answered ${page.status}: ${html}`);
      const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';
      const action = /action="([^"]*)"/.exec(html)?.[1] ?? '';
      return { action: action.replace(/&amp;/g, '&'), SAMLResponse: field('SAMLResponse'), RelayState: field('RelayState').replace(/&amp;/g, '&') };
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
