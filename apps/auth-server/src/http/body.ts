// Request bodies: JSON only, capped at 1 MiB (reference §1.1). Whatever the Content-Type, a
// non-empty body must parse as a JSON object; `allowForm` additionally accepts
// application/x-www-form-urlencoded (only /token, where GoTrue reads grant_type from a form).
import type { Request, RequestHandler } from 'express';
import { ApiError, ErrorCode } from '../errors';

export const MAX_BODY_BYTES = 1024 * 1024;

const tooLarge = () => new ApiError(413, ErrorCode.request_entity_too_large, 'Request body too large');
const badJson = (detail: string) => new ApiError(400, ErrorCode.bad_json, `Could not parse request body as JSON: ${detail}`);

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
      req.body = Object.fromEntries(new URLSearchParams(text));
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
    req.body = parsed;
    next();
  };
}
