// Request bodies: JSON only, capped at 1 MiB (reference §1.1). Whatever the Content-Type, a
// non-empty body must parse as a JSON object; `allowForm` additionally accepts
// application/x-www-form-urlencoded (only /token, where GoTrue reads grant_type from a form).
// Every parsed body (and, through `refuseUnstorable`, any query value a route stores or looks up)
// must also be storable: PostgreSQL text and jsonb reject U+0000 and jsonb rejects unpaired UTF-16
// surrogates, which would otherwise surface as a 500 from deep inside a query.
import type { Request, RequestHandler } from 'express';
import { ApiError, ErrorCode } from '../errors';

export const MAX_BODY_BYTES = 1024 * 1024;
/** Deeper bodies are refused: serializing them (jsonb, logs) would overflow the stack. */
export const MAX_BODY_DEPTH = 64;
/**
 * An oversized body is read and thrown away up to this many bytes before the 413 goes out, so the
 * client is still reading when it arrives (answering mid-upload and closing makes it fail with
 * EPIPE instead of seeing the 413). Beyond it, the 413 is sent and the connection closed at once.
 */
export const MAX_DRAIN_BYTES = 16 * 1024 * 1024;

// The connection is not reused after a 413: the rest of the body may still be on its way.
const tooLarge = () =>
  new ApiError(413, ErrorCode.request_entity_too_large, 'Request body too large', { headers: { Connection: 'close' } });
const badJson = (detail: string) => new ApiError(400, ErrorCode.bad_json, `Could not parse request body as JSON: ${detail}`);

// An unpaired high surrogate (not followed by a low one) or an unpaired low surrogate.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function unstorableString(s: string): boolean {
  return s.includes('\u0000') || LONE_SURROGATE.test(s);
}

type BodyProblem = 'unstorable' | 'too deep' | undefined;

/** Walks every string and object key, however deep (an explicit stack: no recursion limit). */
function findBodyProblem(root: unknown, maxDepth = Infinity): BodyProblem {
  const pending: Array<[unknown, number]> = [[root, 0]];
  while (pending.length > 0) {
    const [value, depth] = pending.pop()!;
    if (typeof value === 'string') {
      if (unstorableString(value)) return 'unstorable';
    } else if (value !== null && typeof value === 'object') {
      if (depth >= maxDepth) return 'too deep';
      if (Array.isArray(value)) {
        for (const item of value) pending.push([item, depth + 1]); // not push(...value): a long array would overflow the stack
      } else {
        for (const [key, item] of Object.entries(value)) {
          if (unstorableString(key)) return 'unstorable';
          pending.push([item, depth + 1]);
        }
      }
    }
  }
  return undefined;
}

const unstorable = (what: string) =>
  new ApiError(400, ErrorCode.validation_failed, `${what} must not contain NUL (\\u0000) characters or unpaired surrogates`);

/**
 * 400 validation_failed when `value` (a body, a query value), in any string or object key at any
 * depth, holds a NUL character or an unpaired surrogate: neither can be stored in PostgreSQL.
 */
export function refuseUnstorable(value: unknown, what: string): void {
  if (findBodyProblem(value)) throw unstorable(what);
}

/** refuseUnstorable, plus at most MAX_BODY_DEPTH levels of objects and arrays. */
function refuseBadBody(value: unknown): void {
  const problem = findBodyProblem(value, MAX_BODY_DEPTH);
  if (problem === 'unstorable') throw unstorable('The request body');
  if (problem === 'too deep') {
    throw new ApiError(400, ErrorCode.validation_failed, `The request body is nested too deeply (at most ${MAX_BODY_DEPTH} levels)`);
  }
}

function readRaw(req: Request, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 'NaN');
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = Number.isFinite(declared) && declared > limit;
    let settled = false;
    const refuse = () => {
      if (settled) return;
      settled = true;
      reject(tooLarge());
    };
    if (failed && declared > MAX_DRAIN_BYTES) refuse();
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (failed) {
        if (size > MAX_DRAIN_BYTES) refuse();
        return;
      }
      if (size > limit) {
        failed = true;
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (failed) refuse();
      else if (!settled) {
        settled = true;
        resolve(Buffer.concat(chunks));
      }
    });
    req.on('error', (err) => {
      if (!settled) {
        settled = true;
        reject(err);
      }
    });
  });
}

export function parseBody(options: { allowForm?: boolean; limit?: number } = {}): RequestHandler {
  const limit = options.limit ?? MAX_BODY_BYTES;
  return async (req, _res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') {
      req.body = {};
      next();
      return;
    }
    const raw = await readRaw(req, limit);
    const text = raw.toString('utf8');
    const type = (req.get('content-type') ?? '').toLowerCase();
    if (options.allowForm && type.startsWith('application/x-www-form-urlencoded')) {
      const form = Object.fromEntries(new URLSearchParams(text));
      refuseBadBody(form);
      req.body = form;
      next();
      return;
    }
    if (text.trim() === '') {
      req.body = {};
      next();
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw badJson((err as Error).message);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw badJson('expected a JSON object');
    }
    refuseBadBody(parsed);
    req.body = parsed;
    next();
  };
}
