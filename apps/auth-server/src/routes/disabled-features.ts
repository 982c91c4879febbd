// GoTrue's answers for features this server does not offer (yet, or by configuration), so clients
// that probe for them (auth-js's integration suite does) get the codes they handle instead of 404
// or unsupported_grant_type: Web3 sign-in, ID-token sign-in (no external providers are enabled
// until the OAuth issue), manual identity linking (needs those providers) and SAML SSO.
import type { RequestHandler } from 'express';
import { ApiError, ErrorCode } from '../errors';
import type { GrantHandler } from './token';

export const web3Grant: GrantHandler = async () => {
  throw new ApiError(422, ErrorCode.web3_provider_disabled, 'Web3 provider is disabled');
};

export const idTokenGrant: GrantHandler = async (_deps, body) => {
  const provider = typeof (body as { provider?: unknown })?.provider === 'string' ? (body as { provider: string }).provider : '';
  throw new ApiError(400, ErrorCode.provider_disabled, provider ? `Provider ${provider} is not enabled` : 'Provider is not enabled');
};

export function manualLinkingDisabled(): RequestHandler {
  return () => {
    throw new ApiError(404, ErrorCode.manual_linking_disabled, 'Manual linking is disabled');
  };
}

export function samlDisabled(): RequestHandler {
  return () => {
    throw new ApiError(404, ErrorCode.saml_provider_disabled, 'SAML 2.0 is disabled');
  };
}
