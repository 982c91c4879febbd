// <character-string> escaping (RFC 1035 §5.1). Stored text is plain Unicode; zone files carry it as
// quoted strings where '"' and '\' are escaped and bytes outside printable ASCII become \DDD, so any
// text survives export and import unchanged.

export const MAX_CHARSTRING_OCTETS = 255;

/** Bytes of a quoted or unquoted presentation string with its escapes resolved. */
export function unescapeBytes(text: string): Buffer {
  if (!text.includes('\\')) return Buffer.from(text, 'utf8');
  const out: number[] = [];
  // By code point, so a character outside the BMP (two UTF-16 units) becomes its 4 UTF-8 bytes.
  const chars = Array.from(text);
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i] as string;
    if (ch === '\\' && i + 1 < chars.length) {
      const digits = chars.slice(i + 1, i + 4).join('');
      if (/^\d{3}$/.test(digits)) {
        out.push(Number(digits) & 0xff);
        i += 3;
        continue;
      }
      out.push(...Buffer.from(chars[i + 1] as string, 'utf8'));
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

export function octetLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

// TXT data as a list of <character-string>s (issue 12): each string is up to 255 bytes, kept exactly as
// sent, including where a long text was split and bytes that are not UTF-8. The stored and exported form
// is the presentation form: every string quoted, escapes per RFC 1035 §5.1, separated by one space.

/** The bytes of each string of a presentation form; undefined when `text` is not one or more quoted strings. */
export function parseCharStrings(text: string): Buffer[] | undefined {
  const strings: Buffer[] = [];
  let i = 0;
  const skipBlanks = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t')) i++;
  };
  skipBlanks();
  if (text[i] !== '"') return undefined;
  while (i < text.length) {
    if (text[i] !== '"') return undefined;
    let j = i + 1;
    while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
    if (j >= text.length) return undefined; // unterminated
    strings.push(unescapeBytes(text.slice(i + 1, j)));
    i = j + 1;
    const before = i;
    skipBlanks();
    if (i < text.length && i === before) return undefined; // strings must be separated by blanks
  }
  return strings;
}

/** Plain text as character-strings: its UTF-8 bytes in pieces of at most 255 (one empty string for ""). */
export function splitText(text: string): Buffer[] {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length === 0) return [Buffer.alloc(0)];
  const pieces: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += MAX_CHARSTRING_OCTETS) pieces.push(bytes.subarray(i, i + MAX_CHARSTRING_OCTETS));
  return pieces;
}

/** The canonical presentation form of these strings. */
export function formatCharStrings(strings: readonly Uint8Array[]): string {
  return strings.map((s) => quoteBytes(s)).join(' ');
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * One string as the API shows it in `strings`: its text with `"`, `\` and control characters escaped
 * (\DDD), or, when its bytes are not UTF-8, every byte outside printable ASCII as \DDD. Either way
 * unescapeBytes gives the exact bytes back, so the form can be sent again.
 */
export function escapeCharString(bytes: Uint8Array): string {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return quoteBytes(bytes).slice(1, -1);
  }
  // eslint-disable-next-line no-control-regex -- escaping control characters is what this does
  return text.replace(/["\\\u0000-\u001f\u007f]/g, (c) => (c === '"' || c === '\\' ? `\\${c}` : `\\${c.charCodeAt(0).toString().padStart(3, '0')}`));
}

/** The strings' bytes joined and read as UTF-8 (bytes that are not UTF-8 show as U+FFFD): for people. */
export function charStringsText(strings: readonly Uint8Array[]): string {
  return Buffer.concat(strings).toString('utf8');
}
