// <character-string> escaping (RFC 1035 §5.1). Stored text is plain Unicode; zone files carry it as
// quoted strings where '"' and '\' are escaped and bytes outside printable ASCII become \DDD, so any
// text survives export and import unchanged.

export const MAX_CHARSTRING_OCTETS = 255;

/** Bytes of a quoted or unquoted presentation string with its escapes resolved. */
export function unescapeBytes(text: string): Buffer {
  if (!text.includes('\\')) return Buffer.from(text, 'utf8');
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === '\\' && i + 1 < text.length) {
      const digits = text.slice(i + 1, i + 4);
      if (/^\d{3}$/.test(digits)) {
        out.push(Number(digits) & 0xff);
        i += 3;
        continue;
      }
      out.push(...Buffer.from(text[i + 1] as string, 'utf8'));
      i += 1;
      continue;
    }
    out.push(...Buffer.from(ch, 'utf8'));
  }
  return Buffer.from(out);
}

/** A quoted presentation string for these bytes. */
export function quoteBytes(bytes: Uint8Array): string {
  let out = '"';
  for (const b of bytes) {
    if (b === 0x22 || b === 0x5c) out += `\\${String.fromCharCode(b)}`;
    else if (b < 0x20 || b > 0x7e) out += `\\${b.toString().padStart(3, '0')}`;
    else out += String.fromCharCode(b);
  }
  return `${out}"`;
}

export function quoteText(text: string): string {
  // Printable ASCII without quote or backslash needs no escaping: skip the byte walk.
  return /^[ !#-[\]-~]*$/.test(text) ? `"${text}"` : quoteBytes(Buffer.from(text, 'utf8'));
}

/** Splits text into quoted strings of at most 255 octets each (TXT data longer than one string). */
export function quoteChunks(text: string): string[] {
  if (text.length <= MAX_CHARSTRING_OCTETS && /^[ !#-[\]-~]*$/.test(text)) return [`"${text}"`];
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length === 0) return ['""'];
  const chunks: string[] = [];
  for (let i = 0; i < bytes.length; i += MAX_CHARSTRING_OCTETS) {
    chunks.push(quoteBytes(bytes.subarray(i, i + MAX_CHARSTRING_OCTETS)));
  }
  return chunks;
}

export function octetLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
