import { errors } from 'jose';
import { TokenError } from '../errors';

/** Maps jose's error classes to our codes, keeping only a short reason (no library internals). */
export function toTokenError(err: unknown): TokenError {
  if (err instanceof TokenError) return err;
  if (err instanceof errors.JWTExpired) return new TokenError('expired', 'token has expired');
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'nbf') return new TokenError('not_yet_valid', 'token is not valid yet');
    if (err.claim === 'exp') return new TokenError('claim_invalid', 'token has no valid exp');
    return new TokenError('claim_invalid', `claim ${err.claim} is invalid`);
  }
  if (err instanceof errors.JWSSignatureVerificationFailed) return new TokenError('bad_signature', 'signature is invalid');
  if (err instanceof errors.JOSEAlgNotAllowed || err instanceof errors.JOSENotSupported) {
    return new TokenError('alg_not_allowed', 'algorithm is not allowed');
  }
  if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys) {
    return new TokenError('unknown_kid', 'no key matches the token');
  }
  if (err instanceof errors.JWSInvalid || err instanceof errors.JWTInvalid) return new TokenError('malformed', 'token is malformed');
  return new TokenError('malformed', 'token could not be verified');
}
