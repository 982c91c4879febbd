// A zone file that arrives as bytes (a text/dns request body) is decoded and tokenized piece by piece, so a
// large file is never held as one string beside its bytes (issue 27: a 9.3 MB import held the body three
// times at its peak: the chunks, their concatenation and the decoded text).
import { StringDecoder } from 'node:string_decoder';

/**
 * The UTF-8 text of `chunks` as consecutive pieces, each ending at a line end that no backslash escapes (where
 * tokenizeEntries may carry on in the next piece). Each chunk is released from the array once decoded, so the
 * bytes are freed as the parse goes. Invalid UTF-8 becomes U+FFFD, as Buffer#toString makes it. One pass only.
 */
export function* textPieces(chunks: Array<Buffer | undefined>): Generator<string> {
  const decoder = new StringDecoder('utf8');
  let carry = '';
  for (let k = 0; k < chunks.length; k++) {
    const fresh = decoder.write(chunks[k] as Buffer);
    chunks[k] = undefined;
    // Only the new text is searched: a line longer than a chunk is carried, never scanned again.
    const cut = lastUnescapedLineEnd(fresh, carry);
    if (cut < 0) {
      carry += fresh;
      continue;
    }
    const piece = carry + fresh.slice(0, cut + 1);
    carry = fresh.slice(cut + 1);
    yield piece;
  }
  const rest = carry + decoder.end();
  if (rest !== '') yield rest;
}

/** The last line end in `text` not escaped by a backslash (which may end `before`), or -1. */
function lastUnescapedLineEnd(text: string, before: string): number {
  let at = text.lastIndexOf('\n');
  while (at >= 0 && (at > 0 ? text.charCodeAt(at - 1) : before.charCodeAt(before.length - 1)) === 0x5c) {
    at = at > 0 ? text.lastIndexOf('\n', at - 1) : -1;
  }
  return at;
}
