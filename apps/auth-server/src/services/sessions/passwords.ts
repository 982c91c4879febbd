// Password policy (reference §6.6) and bcrypt hashing. The policy returns every failed rule so
// a 422 weak_password lists all reasons at once.
import bcrypt from 'bcrypt';
import { ApiError, ErrorCode } from '../../errors';

export interface PasswordPolicy {
  minLength: number;
  requiredCharacters: readonly string[];
}

export const MAX_PASSWORD_BYTES = 72;

/** Failed rules, in GoTrue's order; [] when the password is acceptable. */
export function weakPasswordReasons(password: string, policy: PasswordPolicy): ('length' | 'characters')[] {
  const reasons: ('length' | 'characters')[] = [];
  if (Buffer.byteLength(password, 'utf8') < policy.minLength) reasons.push('length'); // Go len(): bytes
  for (const set of policy.requiredCharacters) {
    if (set.length > 0 && ![...password].some((ch) => set.includes(ch))) {
      reasons.push('characters');
      break;
    }
  }
  return reasons;
}

export function weakPasswordMessage(reasons: string[], policy: PasswordPolicy): string {
  const parts: string[] = [];
  if (reasons.includes('length')) parts.push(`Password should be at least ${policy.minLength} characters.`);
  if (reasons.includes('characters')) {
    parts.push(`Password should contain at least one character of each: ${policy.requiredCharacters.join(', ')}.`);
  }
  return parts.join(' ');
}

/** Throws 400 (over 72 bytes) or 422 weak_password with {weak_password: {reasons}}. */
export function checkPasswordStrength(password: string, policy: PasswordPolicy): void {
  if (Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) {
    throw new ApiError(400, ErrorCode.validation_failed, `Password cannot be longer than ${MAX_PASSWORD_BYTES} characters`);
  }
  const reasons = weakPasswordReasons(password, policy);
  if (reasons.length > 0) {
    throw new ApiError(422, ErrorCode.weak_password, weakPasswordMessage(reasons, policy), {
      payload: { weak_password: { reasons } },
    });
  }
}

export function hashPassword(password: string, cost: number): Promise<string> {
  return bcrypt.hash(password, cost);
}

export async function comparePassword(password: string, hash: string | null | undefined): Promise<boolean> {
  if (!hash || !hash.startsWith('$2')) return false;
  if (Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) return false;
  return bcrypt.compare(password, hash);
}

// A fixed hash compared against when the email is unknown, so an unknown email and a wrong
// password take the same time. Made once per cost, lazily.
const dummyHashes = new Map<number, Promise<string>>();

export function dummyHash(cost: number): Promise<string> {
  let hash = dummyHashes.get(cost);
  if (!hash) {
    hash = bcrypt.hash('keyzone-dummy-password-never-matches', cost);
    dummyHashes.set(cost, hash);
  }
  return hash;
}
