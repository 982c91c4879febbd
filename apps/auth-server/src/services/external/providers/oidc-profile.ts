// The profile of an OpenID Connect provider: the verified ID token's claims, completed from the userinfo
// endpoint when the token lacks the address (or there is no ID token).
import { obj, requireId, str, type ExternalProfile, type ProfileContext, type ProviderTokens } from '../provider-types';

export async function oidcProfile(
  ctx: ProfileContext,
  tokens: ProviderTokens,
  provider: string,
  isVerified: (claims: Record<string, unknown>) => boolean = (claims) => claims.email_verified === true || claims.email_verified === 'true',
): Promise<ExternalProfile> {
  let claims: Record<string, unknown> = tokens.idToken ? await ctx.verifyIdToken(tokens.idToken) : {};
  if ((!str(claims.email) || !str(claims.sub)) && ctx.userinfoEndpoint) {
    const info = obj(await ctx.getJson(ctx.userinfoEndpoint));
    // userinfo's sub must be the ID token's (OpenID Connect Core 5.3.2).
    if (str(claims.sub) && str(info.sub) !== str(claims.sub)) return profileOf({ ...claims }, provider, isVerified);
    claims = { ...info, ...claims, email: str(claims.email) ?? info.email, email_verified: claims.email_verified ?? info.email_verified };
  }
  return profileOf(claims, provider, isVerified);
}

export function profileOf(
  claims: Record<string, unknown>,
  provider: string,
  isVerified: (c: Record<string, unknown>) => boolean = (c) => c.email_verified === true || c.email_verified === 'true',
): ExternalProfile {
  const email = str(claims.email);
  return {
    providerId: requireId(claims.sub, provider),
    email,
    emailVerified: email !== undefined && isVerified(claims),
    name: str(claims.name) ?? ([str(claims.given_name), str(claims.family_name)].filter(Boolean).join(' ') || undefined),
    avatarUrl: str(claims.picture),
    userName: str(claims.preferred_username),
    issuer: str(claims.iss),
  };
}
