// SAML SSO (GoTrue's sso.go, samlacs.go, samlmetadata.go): POST /sso starts a sign-in, GET /sso/saml/metadata is
// this service provider's metadata, POST /sso/saml/acs takes the IdP's form post. Off (404 saml_provider_disabled)
// unless SAML_ENABLED.
import type { RequestHandler } from 'express';
import { z } from 'zod';
import type { Deps } from '../deps';
import { clientInfo } from '../http/client';
import { validate } from '../http/validate';
import { parsePkceParams } from '../services/external/pkce';
import type { SsoDeps } from '../services/sso/providers';
import { assertSamlEnabled, consumeAssertion, startSso } from '../services/sso/sign-in';
import { requestRedirect } from './email-common';
import { optionalString, pkceFields } from './schemas';

const SsoBody = z.object({
  provider_id: optionalString,
  domain: optionalString,
  redirect_to: optionalString,
  skip_http_redirect: z.boolean().nullish(),
  ...pkceFields,
});

export function startSsoRoute(deps: SsoDeps & Deps): RequestHandler {
  return async (req, res) => {
    assertSamlEnabled(deps);
    const body = validate(SsoBody, req.body);
    const url = await startSso(deps, {
      providerId: body.provider_id,
      domain: body.domain,
      redirectTo: requestRedirect(deps, req),
      pkce: parsePkceParams(body.code_challenge, body.code_challenge_method),
    });
    if (body.skip_http_redirect) res.json({ url });
    else res.redirect(303, url);
  };
}

export function samlMetadata(deps: SsoDeps): RequestHandler {
  return (req, res) => {
    assertSamlEnabled(deps);
    if (req.query.download === 'true') res.set('Content-Disposition', 'attachment; filename="metadata.xml"');
    res.set('Cache-Control', 'public, max-age=600');
    res.type('application/xml').send(deps.serviceProvider.metadataXml());
  };
}

const AcsForm = z.object({
  SAMLResponse: z.string().default(''),
  RelayState: z.string().default(''),
});

export function samlAcs(deps: SsoDeps & Deps): RequestHandler {
  return async (req, res) => {
    assertSamlEnabled(deps);
    const form = validate(AcsForm, req.body, 'The assertion consumer takes a form post with SAMLResponse and RelayState');
    const location = await consumeAssertion(deps, { samlResponse: form.SAMLResponse, relayState: form.RelayState, client: clientInfo(deps, req) });
    res.redirect(302, location);
  };
}
