// Secrets the server must read back (a custom provider's client secret) are stored sealed: AES-256-GCM under a key
// derived by HKDF-SHA256 from the configured key material, with the row's id as associated data so a sealed value
// copied to another row does not open. Stored as `kz1:<key id>:<base64url(iv | ciphertext | tag)>`; the key id (a
// hash of the derived key) tells a value sealed under another key from a tampered one.
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

const FORMAT = 'kz1';

export class SecretBox {
  private readonly key: Buffer;
  private readonly keyId: string;

  /** `purpose` separates keys derived from the same material for different uses. */
  constructor(keyMaterial: string, purpose: string) {
    this.key = Buffer.from(hkdfSync('sha256', keyMaterial, 'keyzone-secret-box', purpose, 32));
    this.keyId = createHash('sha256').update(this.key).digest('base64url').slice(0, 8);
  }

  seal(plaintext: string, associatedData: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(associatedData));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${FORMAT}:${this.keyId}:${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')}`;
  }

  /** The plaintext; throws when the value was sealed under another key, for another row, or altered. */
  open(sealed: string, associatedData: string): string {
    const [format, keyId, payload] = sealed.split(':');
    if (format !== FORMAT || payload === undefined) throw new Error('not a sealed value');
    if (keyId !== this.keyId) throw new Error('sealed under another key (was SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY or JWT_SECRET changed?)');
    const raw = Buffer.from(payload, 'base64url');
    if (raw.length < 28) throw new Error('sealed value too short');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(associatedData));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8');
  }
}
