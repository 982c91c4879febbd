import { createHmac, pbkdf2, randomBytes } from 'node:crypto';
import { constantTimeEqual } from '@keyzone/tokens';
import { promisify } from 'node:util';
import bcrypt from 'bcrypt';
import type { PasswordScheme } from '../../queries/users';

const pbkdf2Async = promisify(pbkdf2);

export type { PasswordScheme };

export interface StoredPassword {
  hash: string;
  scheme: PasswordScheme;
  salt: string | null;
}

// NicTool 2.x / 3.x PBKDF2 parameters (reference §2).
const PBKDF2_ITERATIONS = 5000;
const PBKDF2_KEY_BYTES = 32;

export function hashPassword(password: string, cost: number): Promise<string> {
  return bcrypt.hash(password, cost);
}

/**
 * Checks a password against any scheme NicTool ever stored. `username` keys the legacy HMAC-SHA1 digest
 * (lowercased, as NicTool 2 did). Comparisons of derived values are constant-time.
 */
export async function verifyPassword(stored: StoredPassword, password: string, username: string): Promise<boolean> {
  switch (stored.scheme) {
    case 'bcrypt':
      return bcrypt.compare(password, stored.hash);
    case 'pbkdf2-sha512': {
      if (!stored.salt) return false;
      const derived = await pbkdf2Async(password, stored.salt, PBKDF2_ITERATIONS, PBKDF2_KEY_BYTES, 'sha512');
      return equalHex(derived.toString('hex'), stored.hash);
    }
    case 'hmac-sha1':
      return equalHex(hmacSha1(password, username), stored.hash);
    case 'plaintext':
      return constantTimeEqual(password, stored.hash);
    default:
      return false;
  }
}

export function hmacSha1(password: string, username: string): string {
  return createHmac('sha1', username.toLowerCase()).update(password).digest('hex');
}

export async function pbkdf2Sha512(password: string, salt: string): Promise<string> {
  return (await pbkdf2Async(password, salt, PBKDF2_ITERATIONS, PBKDF2_KEY_BYTES, 'sha512')).toString('hex');
}

/**
 * Burns the time of one bcrypt comparison at the configured cost, for logins that fail before a bcrypt
 * comparison happens (unknown user or group, legacy scheme), so every failure takes as long as a wrong password.
 */
export class DummyPasswordCheck {
  private hash: Promise<string> | undefined;

  constructor(private readonly cost: number) {}

  prepare(): Promise<string> {
    this.hash ??= bcrypt.hash(randomBytes(18).toString('base64'), this.cost);
    return this.hash;
  }

  async run(password: string): Promise<void> {
    await bcrypt.compare(password, await this.prepare());
  }
}

function equalHex(a: string, b: string): boolean {
  return constantTimeEqual(a.toLowerCase(), b.toLowerCase());
}
