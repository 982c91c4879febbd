// Splits zone-file text (RFC 1035 §5.1) into logical entries: comments dropped, parentheses joining lines,
// quoted strings kept whole with their escapes, a backslash protecting the next character. Each entry keeps
// the line it started on and whether it began with blank space (then the owner is the previous one).
// tokenizeEntries is a generator, so a caller can pause between entries (the importer yields to the event
// loop) and never holds more than the entries it keeps; tokenize collects them all.
import { Token } from '../fields';

export interface Entry {
  line: number;
  tokens: Token[];
  /** the entry began with a space or tab: no owner written */
  blankOwner: boolean;
}

export interface TokenizeResult {
  entries: Entry[];
  errors: Array<{ line: number; message: string }>;
}

export function tokenize(text: string): TokenizeResult {
  const errors: Array<{ line: number; message: string }> = [];
  const entries = [...tokenizeEntries(text, (error) => errors.push(error))];
  return { entries, errors };
}

/**
 * Yields each logical entry in order; syntax errors go to `onError` as they are found. The text may come as
 * consecutive pieces (dns/bind/pieces.ts), each ending at a line end that no backslash escapes: nothing but
 * parentheses crosses such a line end, and their state is carried from piece to piece.
 */
export function* tokenizeEntries(source: string | Iterable<string>, onError: (error: { line: number; message: string }) => void): Generator<Entry> {
  let line = 1;
  let depth = 0;
  let entry: Entry | undefined;
  let atLineStart = true;
  let failed = false; // the current entry had a syntax error; it is dropped
  let openLine = 0;

  // The entry just completed, if it is to be yielded (set by finish, taken by the loop).
  let done: Entry | undefined;
  const finish = () => {
    if (entry && entry.tokens.length && !failed) done = entry;
    entry = undefined;
    failed = false;
  };
  const push = (token: Token, startLine: number, blank: boolean) => {
    if (!entry) entry = { line: startLine, tokens: [], blankOwner: blank };
    entry.tokens.push(token);
  };

  let pendingBlank = false;
  for (const text of typeof source === 'string' ? [source] : source) {
    let i = 0;
    while (i < text.length) {
      const ch = text[i] as string;
      if (ch === '\n') {
        line++;
        i++;
        if (depth === 0) finish();
        atLineStart = true;
        pendingBlank = false;
        if (done) {
          yield done;
          done = undefined;
        }
        continue;
      }
      if (ch === ' ' || ch === '\t' || ch === '\r') {
        if (atLineStart && depth === 0) pendingBlank = true;
        atLineStart = false;
        i++;
        continue;
      }
      const startLine = line;
      const blank = atLineStart ? false : pendingBlank;
      atLineStart = false;
      if (ch === ';') {
        while (i < text.length && text[i] !== '\n') i++;
        continue;
      }
      if (ch === '(') {
        if (depth === 0) openLine = line;
        depth++;
        if (!entry) entry = { line, tokens: [], blankOwner: blank };
        i++;
        continue;
      }
      if (ch === ')') {
        if (depth === 0) {
          onError({ line, message: 'unbalanced ")"' });
          failed = true;
        } else depth--;
        i++;
        continue;
      }
      if (ch === '"') {
        let j = i + 1;
        let closed = false;
        while (j < text.length) {
          const c = text.charCodeAt(j);
          if (c === 0x5c && j + 1 < text.length) { j += 2; continue; } // backslash: the next character is literal
          if (c === 0x22) { closed = true; j++; break; }
          if (c === 0x0a) break;
          j++;
        }
        const raw = text.slice(i + 1, closed ? j - 1 : j);
        if (!closed) {
          onError({ line, message: 'unterminated quoted string' });
          failed = true;
          i = j;
          continue;
        }
        push({ text: raw, quoted: true }, startLine, blank);
        i = j;
        continue;
      }
      // An unquoted token runs to blank space, a comment or a parenthesis; a quote inside it (SvcParam
      // values such as alpn="h2,h3") is kept verbatim until its closing quote.
      let j = i;
      while (j < text.length) {
        const c = text.charCodeAt(j);
        if (c === 0x5c && j + 1 < text.length && text.charCodeAt(j + 1) !== 0x0a) { j += 2; continue; }
        if (c === 0x22) {
          const end = text.indexOf('"', j + 1);
          const nl = text.indexOf('\n', j + 1);
          if (end < 0 || (nl >= 0 && nl < end)) break;
          j = end + 1;
          continue;
        }
        // space, tab, CR, LF, ";", "(", ")" end the token
        if (c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a || c === 0x3b || c === 0x28 || c === 0x29) break;
        j++;
      }
      const raw = text.slice(i, j);
      if (j === i) {
        onError({ line, message: 'unterminated quoted string' });
        failed = true;
        i++;
        continue;
      }
      push({ text: raw, quoted: false }, startLine, blank);
      i = j;
    }
  }
  if (depth > 0) {
    onError({ line: openLine, message: 'unbalanced "(": no closing ")" before the end of the file' });
    failed = true;
  }
  finish();
  if (done) yield done;
}
