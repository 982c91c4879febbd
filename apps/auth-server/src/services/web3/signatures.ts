// Whether the wallet that owns a message's address signed it, with maintained libraries (@noble/curves,
// @noble/hashes, @scure/base; no hand-written curve code):
//   Ethereum: EIP-191 personal_sign (keccak-256 of "\x19Ethereum Signed Message:\n<length>" + message), the public
//             key recovered from the 65-byte r‖s‖v signature, the address = last 20 bytes of keccak-256(key);
//   Solana:   ed25519 over the message, or over Solana's off-chain message envelope (what Ledger signs), as GoTrue.
import { ed25519 } from '@noble/curves/ed25519';
import { secp256k1 } from '@noble/curves/secp256k1';
import { keccak_256 } from '@noble/hashes/sha3';
import { base58 } from '@scure/base';

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

/** keccak-256 of the EIP-191 "personal message" envelope. */
export function personalMessageHash(message: string): Uint8Array {
  const body = utf8(message);
  const prefix = utf8(`\x19Ethereum Signed Message:\n${body.length}`);
  const whole = new Uint8Array(prefix.length + body.length);
  whole.set(prefix);
  whole.set(body, prefix.length);
  return keccak_256(whole);
}

/** The lowercase 0x address of an uncompressed (65-byte) secp256k1 public key. */
export function ethereumAddressOf(uncompressedKey: Uint8Array): string {
  return `0x${Buffer.from(keccak_256(uncompressedKey.subarray(1)).subarray(12)).toString('hex')}`;
}

/** `signature`: 0x + 130 hex characters (r, s, v with v 0/1 or 27/28). Compares addresses whatever their case. */
export function ethereumSignatureMatches(message: string, signature: string, address: string): boolean {
  const hex = signature.startsWith('0x') ? signature.slice(2) : signature;
  if (!/^[0-9a-fA-F]{130}$/.test(hex)) return false;
  const bytes = Buffer.from(hex, 'hex');
  let v = bytes[64] as number;
  if (v >= 27) v -= 27;
  if (v !== 0 && v !== 1) return false;
  try {
    const key = secp256k1.Signature.fromCompact(bytes.subarray(0, 64)).addRecoveryBit(v).recoverPublicKey(personalMessageHash(message));
    return ethereumAddressOf(key.toRawBytes(false)) === address.toLowerCase();
  } catch {
    return false;
  }
}

/** Solana's off-chain message envelope, version 0, ASCII format, one signer (what a Ledger signs). */
function offchainEnvelope(domain: string, publicKey: Uint8Array, message: Uint8Array): Uint8Array | undefined {
  if (message.length > 0xffff) return undefined;
  const head = new Uint8Array(16 + 1 + 32 + 1 + 1 + 32 + 2);
  head[0] = 0xff;
  head.set(utf8('solana offchain'), 1);
  head[16] = 0; // version
  head.set(utf8(domain).subarray(0, 32), 17); // the application domain, zero-padded to 32 bytes
  head[49] = 0; // format: restricted ASCII
  head[50] = 1; // one signer
  head.set(publicKey, 51);
  head[83] = message.length & 0xff;
  head[84] = message.length >> 8;
  const whole = new Uint8Array(head.length + message.length);
  whole.set(head);
  whole.set(message, head.length);
  return whole;
}

/** `signature`: 64 bytes; `address`: the base58 ed25519 public key. */
export function solanaSignatureMatches(message: string, signature: Uint8Array, address: string, domain: string): boolean {
  let publicKey: Uint8Array;
  try {
    publicKey = base58.decode(address);
  } catch {
    return false;
  }
  if (publicKey.length !== 32 || signature.length !== 64) return false;
  const body = utf8(message);
  // zip215 off: RFC 8032's strict checks, so one message has one valid signature per key.
  const verify = (signed: Uint8Array): boolean => {
    try {
      return ed25519.verify(signature, signed, publicKey, { zip215: false });
    } catch {
      return false;
    }
  };
  if (verify(body)) return true;
  const envelope = offchainEnvelope(domain, publicKey, body);
  return envelope !== undefined && verify(envelope);
}
