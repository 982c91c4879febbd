// SAML sign-in (GoTrue's sso.go and samlacs.go). POST /sso stores a relay state (the AuthnRequest's ID, where to
// return, the PKCE flow) and answers the IdP's URL; the IdP posts its Response to the ACS, which accepts it only
// signed by the IdP, for this service provider, in time, InResponseTo the relay state's request and never twice,
// then signs the user in: a session in the fragment (implicit) or ?code= (PKCE).
import { randomUUID } from 'node:crypto';
import type { Profile } from '@node-saml/node-saml';
import xpath from 'xpath';
import type { Deps } from '../../deps';
import { ApiError, ErrorCode } from '../../errors';
import { findIdentitiesByUserId } from '../../queries/identities';
import {
  completeSsoFlowState, deleteRelayState, findRelayStateForUpdate, findSsoProvider, findSsoProviderIdByDomain, insertRelayState,
  insertSsoFlowState, recordAssertionUse, type SsoProviderRow,
} from '../../queries/sso';
import { setLastSignIn } from '../../queries/users';
import type { Executor } from '../../queries/users';
import { audit, AuditAction } from '../platform/audit';
import type { ClientInfo } from '../platform/context';
import { sessionParams, withFragment, withQuery } from '../platform/redirect-urls';
import { redirectPolicyFor } from '../platform/redirects';
import { normalizeEmail } from '../sessions/accounts';
import { tokenResponse } from '../sessions/access-token';
import { AmrMethod, createSession } from '../sessions/sessions';
import type { PkceParams } from '../external/pkce';
import { resolveSsoUser } from './accounts';
import { emailOf, mappedClaims, userIdOf, type AssertionAttributes } from './attribute-mapping';
import { parseIdpMetadata, parseXml } from './idp-metadata';
import type { SsoDeps } from './providers';
import { CLOCK_SKEW_MS, OneRequestId } from './service-provider';
import { isUuid } from '../../uuid';

const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';

export function assertSamlEnabled(deps: Pick<SsoDeps, 'config'>): void {
  if (!deps.config.saml.enabled) throw new ApiError(404, ErrorCode.saml_provider_disabled, 'SAML 2.0 is disabled');
}

export interface StartSsoInput {
  providerId?: string;
  domain?: string;
  /** Validated against the allow-list already. */
  redirectTo: string;
  pkce: PkceParams | undefined;
}

async function providerFor(deps: SsoDeps, input: StartSsoInput): Promise<SsoProviderRow> {
  const hasId = input.providerId !== undefined && input.providerId !== '';
  const hasDomain = input.domain !== undefined && input.domain !== '';
  if (hasId && hasDomain) throw new ApiError(400, ErrorCode.validation_failed, 'Only one of provider_id or domain supported');
  if (!hasId && !hasDomain) throw new ApiError(400, ErrorCode.validation_failed, 'A provider_id or domain needs to be provided');
  const id = hasId ? input.providerId! : await findSsoProviderIdByDomain(deps.db, input.domain!.trim());
  const row = id && isUuid(id) ? await findSsoProvider(deps.db, id) : undefined;
  if (!row) {
    throw new ApiError(404, ErrorCode.sso_provider_not_found, hasId ? 'No such SSO provider' : 'No SSO provider assigned for this domain');
  }
  if (row.disabled) throw new ApiError(422, ErrorCode.sso_provider_disabled, 'SSO provider is disabled');
  return row;
}

/** POST /sso: the IdP's URL carrying a signed AuthnRequest (HTTP-Redirect binding) and the relay state. */
export async function startSso(deps: SsoDeps, input: StartSsoInput): Promise<string> {
  assertSamlEnabled(deps);
  const provider = await providerFor(deps, input);
  const idp = parseIdpMetadata(await deps.metadataRefresh.metadataOf(provider));
  const now = deps.clock.now();
  const relayStateId = randomUUID();
  const requestIds = new OneRequestId();
  const saml = deps.serviceProvider.samlFor(idp, {
    nameIdFormat: provider.name_id_format, requestIds, requestIdLifetimeMs: deps.config.saml.relayStateValiditySeconds * 1000,
    newId: () => `_${randomUUID()}`,
  });
  const url = await saml.getAuthorizeUrlAsync(relayStateId, undefined, {});
  if (!requestIds.id) throw new Error('node-saml built an AuthnRequest without recording its ID');
  await deps.db.transaction().execute(async (tx) => {
    const flowStateId = input.pkce ? randomUUID() : null;
    if (input.pkce && flowStateId) {
      await insertSsoFlowState(tx, {
        id: flowStateId, codeChallenge: input.pkce.codeChallenge, codeChallengeMethod: input.pkce.codeChallengeMethod, referrer: input.redirectTo, at: now,
      });
    }
    await insertRelayState(tx, { id: relayStateId, providerId: provider.id, requestId: requestIds.id!, redirectTo: input.redirectTo, flowStateId, at: now });
  });
  return url;
}

/** What the checks of one Response yield. */
interface AcceptedAssertion {
  assertionId: string;
  /** Until when the assertion could be accepted at all: how long its ID is remembered. */
  usableUntil: Date;
  /** AuthnStatement SessionNotOnOrAfter: the session ends then. */
  sessionNotAfter: Date | undefined;
  subject: { nameId: string | undefined; nameIdFormat: string | undefined };
  attributes: AssertionAttributes;
}

const rejected = (why: string) => new ApiError(400, ErrorCode.validation_failed, `SAML Assertion is not valid: ${why}`);
const local = (name: string) => `*[local-name()='${name}']`;

function attributesOf(profile: Profile): AssertionAttributes {
  const out: AssertionAttributes = {};
  const raw = (profile.attributes ?? {}) as Record<string, unknown>;
  for (const [name, value] of Object.entries(raw)) {
    const values = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
    if (values.length > 0) out[name] = values;
  }
  return out;
}

function dateOf(value: string | null | undefined): Date | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/**
 * The checks node-saml leaves to its caller, on the raw Response and on the assertion it verified: the Response's
 * Destination and the bearer confirmation's Recipient are this ACS, the issuer is the provider's entity ID, no
 * comment hides in a NameID or attribute value (CVE-2017-11428: a comment truncates the text a parser reads).
 */
function checkAssertion(deps: SsoDeps, rawXml: string, profile: Profile, entityId: string): AcceptedAssertion {
  const acs = deps.serviceProvider.acsUrl;
  const response = parseXml(rawXml, 'SAML Response').documentElement;
  const destination = response.getAttribute('Destination');
  if (destination && destination !== acs) throw rejected(`the Response's Destination is ${destination}, not ${acs}`);
  if ((xpath.select(`//${local('NameID')}/comment() | //${local('AttributeValue')}/comment()`, response) as Node[]).length > 0) {
    throw rejected('comments inside a NameID or AttributeValue are not accepted');
  }
  if (profile.issuer !== entityId) throw rejected(`the assertion was issued by ${String(profile.issuer)}, not ${entityId}`);

  const xml = profile.getAssertionXml?.();
  if (!xml) throw rejected('no signed assertion');
  const assertion = parseXml(xml, 'SAML Assertion').documentElement;
  const assertionId = assertion.getAttribute('ID');
  if (!assertionId) throw rejected('the assertion has no ID');
  const confirmations = (xpath.select(`./${local('Subject')}/${local('SubjectConfirmation')}`, assertion) as Element[])
    .filter((c) => c.getAttribute('Method') === BEARER)
    .flatMap((c) => xpath.select(`./${local('SubjectConfirmationData')}`, c) as Element[]);
  const confirmation = confirmations.find((data) => data.getAttribute('Recipient') === acs && dateOf(data.getAttribute('NotOnOrAfter')));
  if (!confirmation) throw rejected(`no bearer SubjectConfirmation for Recipient ${acs} with a NotOnOrAfter`);
  const confirmationEnd = dateOf(confirmation.getAttribute('NotOnOrAfter'))!;
  const conditions = xpath.select(`./${local('Conditions')}`, assertion) as Element[];
  const conditionsEnd = dateOf(conditions[0]?.getAttribute('NotOnOrAfter'));
  const lastUsable = Math.max(confirmationEnd.getTime(), conditionsEnd?.getTime() ?? 0) + CLOCK_SKEW_MS;
  const authn = xpath.select(`./${local('AuthnStatement')}`, assertion) as Element[];
  return {
    assertionId,
    usableUntil: new Date(lastUsable),
    sessionNotAfter: dateOf(authn[0]?.getAttribute('SessionNotOnOrAfter')),
    subject: { nameId: profile.nameID || undefined, nameIdFormat: profile.nameIDFormat || undefined },
    attributes: attributesOf(profile),
  };
}

async function validateResponse(deps: SsoDeps, provider: SsoProviderRow, samlResponse: string, requestIds: OneRequestId): Promise<AcceptedAssertion> {
  const idp = parseIdpMetadata(provider.metadata_xml);
  const saml = deps.serviceProvider.samlFor(idp, {
    nameIdFormat: provider.name_id_format, requestIds, requestIdLifetimeMs: deps.config.saml.relayStateValiditySeconds * 1000,
  });
  const rawXml = Buffer.from(samlResponse, 'base64').toString('utf8');
  // Refused before any parser sees it: no DTD, so no entity of any kind is expanded.
  if (/<!DOCTYPE|<!ENTITY/i.test(rawXml)) throw rejected('a DOCTYPE or entity declaration is not accepted');
  let profile: Profile | null;
  try {
    ({ profile } = await saml.validatePostResponseAsync({ SAMLResponse: samlResponse }));
  } catch (err) {
    throw rejected((err as Error).message);
  }
  if (!profile) throw rejected('the identity provider did not authenticate the user');
  return checkAssertion(deps, rawXml, profile, idp.entityId);
}

function identityFrom(provider: SsoProviderRow, accepted: AcceptedAssertion): { subject: string; email: string; data: Record<string, unknown> } {
  const claims = mappedClaims(accepted.attributes, provider.attribute_mapping);
  const subject = userIdOf(accepted.attributes, accepted.subject);
  if (!subject) {
    throw new ApiError(400, ErrorCode.saml_assertion_no_user_id,
      'SAML Assertion did not contain a persistent Subject Identifier attribute or Subject NameID uniquely identifying this user');
  }
  const rawEmail = emailOf(claims, accepted.attributes, accepted.subject);
  if (!rawEmail) throw new ApiError(400, ErrorCode.saml_assertion_no_email, 'SAML Assertion does not contain an email address');
  let email: string;
  try {
    email = normalizeEmail(rawEmail);
  } catch {
    throw new ApiError(400, ErrorCode.saml_assertion_no_email, 'SAML Assertion\'s email address is not a valid address');
  }
  return { subject, email, data: { ...claims, iss: provider.entity_id, sub: subject, email, email_verified: true, phone_verified: false } };
}

export interface AcsInput {
  samlResponse: string;
  relayState: string;
  client: ClientInfo;
}

/** POST /sso/saml/acs: the location to send the browser to, with the session or the PKCE code. */
export async function consumeAssertion(deps: SsoDeps & Pick<Deps, 'jwt'>, input: AcsInput): Promise<string> {
  assertSamlEnabled(deps);
  if (!input.samlResponse) throw new ApiError(400, ErrorCode.validation_failed, 'SAMLResponse is missing');
  if (!isUuid(input.relayState)) {
    // GoTrue takes an unsolicited (IdP-initiated) Response; Keyzone needs the request it answers (see README).
    throw new ApiError(400, ErrorCode.validation_failed,
      'RelayState is missing or not one this server issued: sign-ins start at POST /sso (IdP-initiated sign-in is not accepted)');
  }
  const now = deps.clock.now();
  const result = await deps.db.transaction().execute(async (tx: Executor) => {
    const relay = await findRelayStateForUpdate(tx, input.relayState);
    if (!relay) throw new ApiError(404, ErrorCode.saml_relay_state_not_found, 'SAML RelayState does not exist, try logging in again?');
    const createdAt = new Date(relay.created_at);
    if (createdAt.getTime() + deps.config.saml.relayStateValiditySeconds * 1000 <= now.getTime()) {
      throw new ApiError(422, ErrorCode.saml_relay_state_expired, 'SAML RelayState has expired. Try logging in again?');
    }
    const provider = await findSsoProvider(tx, relay.sso_provider_id);
    if (!provider) throw new ApiError(404, ErrorCode.sso_provider_not_found, 'No such SSO provider');
    if (provider.disabled) throw new ApiError(422, ErrorCode.sso_provider_disabled, 'SSO provider is disabled');

    const accepted = await validateResponse(deps, provider, input.samlResponse, new OneRequestId(relay.request_id, createdAt));
    if (!(await recordAssertionUse(tx, { providerId: provider.id, assertionId: accepted.assertionId, expiresAt: accepted.usableUntil }))) {
      throw rejected('this assertion has already been used');
    }
    await deleteRelayState(tx, relay.id);
    const user = await resolveSsoUser(deps, tx, { providerId: provider.id, ...identityFrom(provider, accepted), client: input.client });
    const target = redirectPolicyFor(deps.config).validate(relay.redirect_to ?? undefined);
    if (relay.flow_state_id) {
      const code = randomUUID();
      if (!(await completeSsoFlowState(tx, { id: relay.flow_state_id, userId: user.id, authCode: code, at: now }))) {
        throw new ApiError(404, ErrorCode.flow_state_not_found, 'invalid flow state, no valid flow state found');
      }
      return { target, code, user, issued: undefined };
    }
    const issued = await createSession(tx, { user, method: AmrMethod.ssoSaml, client: input.client, at: now, notAfter: accepted.sessionNotAfter });
    await setLastSignIn(tx, user.id, now);
    await audit(tx, { actor: user, action: AuditAction.login, client: input.client, at: now, traits: { provider: `sso:${provider.id}` } });
    return { target, code: undefined, user: { ...user, last_sign_in_at: now }, issued };
  });
  if (result.code) return withQuery(result.target, { code: result.code });
  const session = await tokenResponse(deps, {
    user: result.user,
    identities: await findIdentitiesByUserId(deps.db, result.user.id),
    session: result.issued!.session,
    amr: result.issued!.amr,
    refreshToken: result.issued!.refreshToken,
  });
  return withFragment(result.target, sessionParams(session));
}
