import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

/** URL-safe random token (base64url, no padding) of `byteLength` random bytes (default 32). */
export function randomToken(byteLength = 32): string {
  if (!Number.isInteger(byteLength) || byteLength < 1) {
    throw new RangeError('randomToken: byteLength must be a positive integer');
  }
  return randomBytes(byteLength).toString('base64url');
}

const BASE32_LOWER = 'abcdefghijklmnopqrstuvwxyz234567';
const REFRESH_TOKEN_LENGTH = 12;

/**
 * A GoTrue v1 refresh token: an opaque 12-character lowercase base32 string (reference §5.3,
 * GoTrue's crypto.SecureAlphanumeric(12)). Each byte's low 5 bits pick a character; 256 is a
 * multiple of 32, so every character is uniform.
 */
export function newRefreshToken(): string {
  const bytes = randomBytes(REFRESH_TOKEN_LENGTH);
  let out = '';
  for (const b of bytes) out += BASE32_LOWER[b & 31];
  return out;
}

/** A uniformly random numeric one-time password; leading zeros are kept ("004217"). */
export function numericOtp(length: number): string {
  if (!Number.isInteger(length) || length < 1 || length > 64) {
    throw new RangeError('numericOtp: length must be an integer between 1 and 64');
  }
  let out = '';
  for (let i = 0; i < length; i++) out += String(randomInt(10));
  return out;
}

/**
 * The value GoTrue stores for an email/SMS one-time token: hex(SHA-224(identifier + otp)), where the
 * identifier is the email address or phone number (reference §5.2). A PKCE flow prefixes the stored
 * value with "pkce_"; that is the caller's business.
 */
export function hashOneTimeToken(identifier: string, otp: string): string {
  return createHash('sha224').update(identifier + otp, 'utf8').digest('hex');
}

/**
 * Compares two secrets in time that depends only on their lengths. Different lengths return false
 * (after a same-length dummy comparison, so the work done is the same shape either way).
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}
