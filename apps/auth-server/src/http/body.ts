// Request bodies: JSON only, capped at 1 MiB (reference §1.1). Whatever the Content-Type, a
// non-empty body must parse as a JSON object; `allowForm` additionally accepts
// application/x-www-form-urlencoded (only /token, where GoTrue reads grant_type from a form).
// Every parsed body (and, through `refuseUnstorable`, any query value a route stores or looks up)
// must also be storable: PostgreSQL text and jsonb reject U+0000 and jsonb rejects unpaired UTF-16
// surrogates, which would otherwise surface as a 500 from deep inside a query.
import type { Request, RequestHandler } from 'express';
import { ApiError, ErrorCode } from '../errors';

export const MAX_BODY_BYTES = 1024 * 1024;

const tooLarge = () => new ApiError(413, ErrorCode.request_entity_too_large, 'Request body too large');
const badJson = (detail: string) => new ApiError(400, ErrorCode.bad_json, `Could not parse request body as JSON: ${detail}`);

// An unpaired high surrogate (not followed by a low one) or an unpaired low surrogate.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function unstorableString(s: string): boolean {
  return s.includes('\u0000') || LONE_SURROGATE.test(s);
}

/** Walks every string and object key, however deep (an explicit stack: no recursion limit). */
function containsUnstorable(root: unknown): boolean {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') {
      if (unstorableString(value)) return true;
    } else if (Array.isArray(value)) {
      for (const item of value) pending.push(item); // not push(...value): a long array would overflow the stack
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (unstorableString(key)) return true;
        pending.push(item);
      }
    }
  }
  return false;
}

/**
 * 400 validation_failed when `value` (a body, a query value), in any string or object key at any
 * depth, holds a NUL character or an unpaired surrogate: neither can be stored in PostgreSQL.
 */
export function refuseUnstorable(value: unknown, what: string): void {
  if (containsUnstorable(value)) {
    throw new ApiError(400, ErrorCode.validation_failed, `${what} must not contain NUL (\\u0000) characters or unpaired surrogates`);
  }
}

function readRaw(req: Request, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 'NaN');
    if (Number.isFinite(declared) && declared > limit) {
      req.resume();
      reject(tooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!failed) resolve(Buffer.concat(chunks));
    });
    req.on('error', (err) => {
      if (!failed) reject(err);
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
      refuseUnstorable(form, 'The request body');
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
    refuseUnstorable(parsed, 'The request body');
    req.body = parsed;
    next();
  };
}
