// An identity provider's SAML metadata: read from the admin's metadata_xml or fetched from its metadata_url, and
// reduced to what a sign-in needs: the entity ID, where to send the AuthnRequest (HTTP-Redirect binding) and the
// certificates its signatures must verify with.
import { X509Certificate } from 'node:crypto';
import https from 'node:https';
import { DOMParser } from '@xmldom/xmldom';
import xpath from 'xpath';
import { ApiError, ErrorCode } from '../../errors';

export interface IdpMetadata {
  entityId: string;
  /** The SingleSignOnService location for the HTTP-Redirect binding. */
  ssoUrl: string;
  /** PEM certificates of the IdP's signing keys (KeyDescriptors for signing or for any use). */
  certs: string[];
}

const REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const MAX_METADATA_BYTES = 2 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 10_000;

const invalid = (message: string) => new ApiError(400, ErrorCode.validation_failed, message);

/** Parses XML without DTDs (no entity expansion of any kind), throwing on any parse error. */
export function parseXml(xml: string, what: string): Document {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw invalid(`${what} may not contain a DOCTYPE or entity declarations`);
  const fail = (message: string) => {
    throw invalid(`${what} is not well-formed XML: ${message.split('\n')[0]}`);
  };
  const doc = new DOMParser({ errorHandler: { warning: () => undefined, error: fail, fatalError: fail } }).parseFromString(xml, 'text/xml');
  if (!doc?.documentElement) throw invalid(`${what} is not well-formed XML`);
  return doc as unknown as Document;
}

const local = (name: string) => `*[local-name()='${name}']`;

function pemOf(base64: string): string | undefined {
  const body = base64.replace(/\s+/g, '');
  const pem = `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)?.join('\n') ?? ''}\n-----END CERTIFICATE-----\n`;
  try {
    new X509Certificate(pem);
    return pem;
  } catch {
    return undefined;
  }
}

export function parseIdpMetadata(xml: string): IdpMetadata {
  const doc = parseXml(xml, 'SAML metadata');
  const root = doc.documentElement;
  let entity: Element = root;
  if (root.localName === 'EntitiesDescriptor') {
    const entities = xpath.select(`./${local('EntityDescriptor')}`, root) as Element[];
    if (entities.length !== 1) throw invalid('SAML metadata with an EntitiesDescriptor must hold exactly one EntityDescriptor');
    entity = entities[0]!;
  } else if (root.localName !== 'EntityDescriptor') {
    throw invalid('SAML metadata must be an EntityDescriptor');
  }
  const entityId = entity.getAttribute('entityID')?.trim();
  if (!entityId) throw invalid('SAML Metadata does not contain an EntityID');
  const descriptors = xpath.select(`./${local('IDPSSODescriptor')}`, entity) as Element[];
  if (descriptors.length === 0) throw invalid('SAML Metadata does not contain an IDPSSODescriptor');
  if (descriptors.length > 1) throw invalid('SAML Metadata contains multiple IDPSSODescriptors');
  const idp = descriptors[0]!;

  const redirect = (xpath.select(`./${local('SingleSignOnService')}`, idp) as Element[])
    .find((service) => service.getAttribute('Binding') === REDIRECT_BINDING);
  const ssoUrl = redirect?.getAttribute('Location')?.trim();
  if (!ssoUrl) throw invalid('SAML Metadata has no SingleSignOnService with the HTTP-Redirect binding');
  let parsedUrl: URL;
  try {
    parsedUrl = new URL(ssoUrl);
  } catch {
    throw invalid(`SAML Metadata's SingleSignOnService location is not a URL: ${ssoUrl}`);
  }
  if (parsedUrl.protocol !== 'https:' && parsedUrl.protocol !== 'http:') throw invalid('SAML Metadata\'s SingleSignOnService location must be an http(s) URL');

  const certs: string[] = [];
  for (const key of xpath.select(`./${local('KeyDescriptor')}`, idp) as Element[]) {
    const use = key.getAttribute('use');
    if (use && use !== 'signing') continue;
    for (const node of xpath.select(`.//${local('X509Certificate')}`, key) as Element[]) {
      const pem = pemOf(node.textContent ?? '');
      if (!pem) throw invalid('SAML Metadata contains a signing certificate that is not a valid X.509 certificate');
      if (!certs.includes(pem)) certs.push(pem);
    }
  }
  if (certs.length === 0) throw invalid('SAML Metadata contains no signing certificate: assertions could not be verified');
  return { entityId, ssoUrl, certs };
}

/** GET of a metadata_url (https only, checked by the caller): 10 s, 2 MiB at most, a 200 answer. */
export function fetchIdpMetadata(url: string, agent?: https.Agent): Promise<string> {
  const failed = (why: string) => new ApiError(400, ErrorCode.saml_metadata_fetch_failed, `Unable to fetch SAML metadata from ${url}: ${why}`);
  return new Promise((resolve, reject) => {
    const request = https.get(url, { agent, timeout: FETCH_TIMEOUT_MS, headers: { accept: 'application/samlmetadata+xml, application/xml, text/xml' } }, (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        reject(failed(`the server answered ${response.statusCode}`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_METADATA_BYTES) {
          request.destroy();
          reject(failed('the document is larger than 2 MiB'));
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      response.on('error', (err) => reject(failed(err.message)));
    });
    request.on('timeout', () => request.destroy(new Error('no answer within 10 s')));
    request.on('error', (err) => reject(failed(err.message)));
  });
}
