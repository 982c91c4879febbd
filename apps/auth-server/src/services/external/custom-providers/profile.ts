// A custom provider's user, as GoTrue reads it: the verified ID token's claims when the token endpoint returned one
// (OIDC), else the userinfo endpoint's answer; then the admin's attribute_mapping (target claim ← source claim name,
// or a literal value) and the custom_claims_allowlist, copied verbatim from the provider's own claims. The address
// counts as verified only when the provider says so (email_verified), which the mapping cannot set.
import type { CustomProviderRow } from '../../../queries/custom-oauth-providers';
import { profileOf } from '../providers/oidc-profile';
import { obj, ProviderError, type ExternalProfile, type ProfileContext, type ProviderTokens } from '../provider-types';

export function applyAttributeMapping(claims: Record<string, unknown>, mapping: Record<string, unknown>): Record<string, unknown> {
  const out = { ...claims };
  for (const [target, source] of Object.entries(mapping)) {
    if (typeof source === 'string') {
      if (Object.hasOwn(claims, source)) out[target] = claims[source];
    } else {
      out[target] = source;
    }
  }
  return out;
}

export async function customProfile(ctx: ProfileContext, tokens: ProviderTokens, row: CustomProviderRow): Promise<ExternalProfile> {
  let claims: Record<string, unknown>;
  if (row.provider_type === 'oidc' && tokens.idToken) {
    claims = await ctx.verifyIdToken(tokens.idToken);
  } else {
    const url = row.provider_type === 'oauth2' ? row.userinfo_url : ctx.userinfoEndpoint;
    if (!url) throw new ProviderError(`${row.identifier} returned no ID token and has no userinfo endpoint`);
    claims = obj(await ctx.getJson(url));
  }
  const mapped = applyAttributeMapping(claims, row.attribute_mapping);
  // The verification status is the provider's word, never a mapping's (GoTrue blocks email_verified as a target).
  mapped.email_verified = claims.email_verified;
  const profile = profileOf(mapped, row.identifier);
  const customClaims: Record<string, unknown> = {};
  for (const key of row.custom_claims_allowlist) if (Object.hasOwn(claims, key)) customClaims[key] = claims[key];
  return Object.keys(customClaims).length > 0 ? { ...profile, customClaims } : profile;
}
