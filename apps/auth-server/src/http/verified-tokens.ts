// Remembers access tokens that already verified, so a client calling GET /user (or any user
// route) with the same token does not pay the signature check every time. Safe because the
// result depends only on the token bytes and the time: a hit is re-checked against exp with the
// injected clock, and an expired entry goes back through full verification (which rejects it).
// Bounded: the oldest entries are dropped first.
import type { JwtService } from '@keyzone/tokens';

const MAX_ENTRIES = 10_000;

interface Entry {
  claims: Readonly<Record<string, unknown>>;
  exp: number;
}

const caches = new WeakMap<JwtService, Map<string, Entry>>();

export async function verifyCached(
  jwt: JwtService,
  token: string,
  now: Date,
  options: { requireExp?: boolean } = {},
): Promise<Readonly<Record<string, unknown>>> {
  let cache = caches.get(jwt);
  if (!cache) {
    cache = new Map();
    caches.set(jwt, cache);
  }
  const nowSeconds = now.getTime() / 1000;
  const hit = cache.get(token);
  if (hit && hit.exp > nowSeconds) return hit.claims;
  if (hit) cache.delete(token);
  const claims = Object.freeze(await jwt.verify(token, { now, requireExp: options.requireExp }));
  if (typeof claims.exp === 'number') {
    if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value as string);
    cache.set(token, { claims, exp: claims.exp });
  }
  return claims;
}
