// Production HMAC secrets (JWT_SECRET, hook secrets, the DNS API's session secret and auth.yml jwt_secret):
// anyone who guesses one signs tokens or cookies of their own, so a short or patterned value is refused at
// start-up. "Low entropy" is judged from the text itself: its characters' empirical entropy times its length
// (a random 32-character hex string scores 90-128 bits; "aaaa…b" 7, "changeme" repeated 22), and a value that is one
// shorter piece repeated counts only that piece. Secrets made with `openssl rand -base64 32` or `-hex 32` pass.

/** Shortest accepted production secret, in characters (the DNS API's rule since issue 11). */
export const MIN_SECRET_CHARACTERS = 32;
/** Estimated bits below which a secret is refused. */
export const MIN_SECRET_BITS = 80;

/** Well-known example values from documentation (Supabase's self-hosting .env among them). */
const KNOWN_EXAMPLES = new Set([
  'your-super-secret-jwt-token-with-at-least-32-characters-long',
  'super-secret-jwt-token-with-at-least-32-characters-long',
]);

/** The shortest piece the text is a repetition of ("abcabcabc" → "abc"). */
function repeatedUnit(text: string): string {
  for (let size = 1; size <= text.length / 2; size += 1) {
    if (text.length % size !== 0) continue;
    const unit = text.slice(0, size);
    if (unit.repeat(text.length / size) === text) return unit;
  }
  return text;
}

/** Shannon entropy of the symbols' frequencies, times their number. */
function estimatedBits(symbols: ArrayLike<string | number>): number {
  const counts = new Map<string | number, number>();
  for (let i = 0; i < symbols.length; i += 1) counts.set(symbols[i] as string | number, (counts.get(symbols[i] as string | number) ?? 0) + 1);
  let perSymbol = 0;
  for (const count of counts.values()) {
    const p = count / symbols.length;
    perSymbol -= p * Math.log2(p);
  }
  return perSymbol * symbols.length;
}

/**
 * Why `secret` is too weak for production, or undefined when it is not: "expected at least 32 characters in
 * production" or "too predictable for production (...)". The caller prefixes the setting's name.
 */
export function weakSecretReason(secret: string): string | undefined {
  if ([...secret].length < MIN_SECRET_CHARACTERS) return `expected at least ${MIN_SECRET_CHARACTERS} characters in production`;
  const unit = [...repeatedUnit(secret)];
  if (KNOWN_EXAMPLES.has(secret.trim().toLowerCase()) || estimatedBits(unit) < MIN_SECRET_BITS) {
    return 'too predictable for production (repeated or few distinct characters, or a documentation example); ' +
      'generate one with `openssl rand -base64 32`';
  }
  return undefined;
}

/**
 * The same judgement for a key given as bytes: `minBytes` or more (32 for an HS256 JWK, RFC 7518 §3.2; 24 for a
 * Standard Webhooks secret, whose base64 is then 32 characters), not patterned.
 */
export function weakKeyReason(key: Buffer, minBytes = 32): string | undefined {
  if (key.length < minBytes) return `expected a key of at least ${minBytes} bytes in production`;
  if (estimatedBits([...repeatedUnit(key.toString('latin1'))]) < MIN_SECRET_BITS) {
    return 'too predictable for production (repeated or few distinct bytes); generate one with `openssl rand -base64 32`';
  }
  return undefined;
}
