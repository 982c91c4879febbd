// TOTP (RFC 6238 over RFC 4226): HMAC-SHA1, 6 digits, 30-second steps, a code from the step before or after
// accepted for clock drift. Secrets are 20 random bytes in base32, as authenticator apps expect.
import { createHmac, randomBytes } from 'node:crypto';
import { constantTimeEqual } from '@keyzone/tokens';
import QRCode from 'qrcode';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
export const TOTP_PERIOD_SECONDS = 30;
const DIGITS = 6;

export function base32Encode(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

export function base32Decode(text: string): Buffer {
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of text.replace(/=+$/, '').toUpperCase()) {
    const index = ALPHABET.indexOf(char);
    if (index < 0) throw new Error('not base32');
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

export function newTotpSecret(): string {
  return base32Encode(randomBytes(20));
}

export function totpCode(secret: string, step: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', base32Decode(secret)).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0xf;
  const binary = (mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** DIGITS;
  return String(binary).padStart(DIGITS, '0');
}

/** The time step a code belongs to (now, one before or one after), or undefined; never one at or before `lastStep`. */
export function matchingStep(secret: string, code: string, now: Date, lastStep: number | undefined): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const current = Math.floor(now.getTime() / 1000 / TOTP_PERIOD_SECONDS);
  for (const step of [current, current - 1, current + 1]) {
    if (lastStep !== undefined && step <= lastStep) continue;
    if (constantTimeEqual(totpCode(secret, step), code)) return step;
  }
  return undefined;
}

/** otpauth://totp/<issuer>:<account>?secret=…&issuer=… (the Key Uri Format authenticator apps read). */
export function otpauthUri(input: { secret: string; issuer: string; account: string }): string {
  const label = `${encodeURIComponent(input.issuer)}:${encodeURIComponent(input.account)}`;
  return `otpauth://totp/${label}?secret=${input.secret}&issuer=${encodeURIComponent(input.issuer)}`;
}

/** The URI as a QR code in SVG, for the enrollment screen. */
export function qrCodeSvg(uri: string): Promise<string> {
  return QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 1 });
}
