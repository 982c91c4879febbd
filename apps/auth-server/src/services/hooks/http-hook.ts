// An HTTP auth hook call as GoTrue makes it: a JSON POST signed per the Standard Webhooks spec (webhook-id,
// webhook-timestamp, webhook-signature "v1,<base64 HMAC-SHA256 of id.timestamp.body>", one signature per
// configured secret so a receiver can rotate), a timeout per attempt, and at most three attempts: again only
// after a timeout, or a 429/503 that carries Retry-After. Any other failure ends the call at once.
import { createHmac, randomUUID } from 'node:crypto';
import { ApiError, ErrorCode, internalError } from '../../errors';

const ATTEMPTS = 3;
/** GoTrue's PayloadSizeLimit: a larger answer is refused unread. */
const ANSWER_LIMIT = 200 * 1024;

export interface HttpHookTarget {
  url: string;
  /** base64 keys of the `v1,whsec_…` secrets */
  secrets: readonly string[];
}

export function signatureHeaders(secrets: readonly string[], body: string, id: string, timestamp: number): Record<string, string> {
  const signatures = secrets.map((key) => `v1,${createHmac('sha256', Buffer.from(key, 'base64')).update(`${id}.${timestamp}.${body}`).digest('base64')}`);
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signatures.join(' ') };
}

export async function callHttpHook(target: HttpHookTarget, payload: unknown, options: { timeoutMs: number }): Promise<unknown> {
  const body = JSON.stringify(payload);
  const id = randomUUID();
  for (let attempt = 1; ; attempt += 1) {
    // The same id on every attempt lets the receiver recognise a retry; the timestamp is the attempt's own, on the
    // wall clock the receiver checks it against (Standard Webhooks tolerates a few minutes), not the service clock.
    const headers = { 'content-type': 'application/json', ...signatureHeaders(target.secrets, body, id, Math.floor(Date.now() / 1000)) };
    let response: Response;
    try {
      response = await fetch(target.url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(options.timeoutMs) });
    } catch (err) {
      const timedOut = (err as Error).name === 'TimeoutError';
      if (timedOut && attempt < ATTEMPTS) continue;
      if (timedOut) throw new ApiError(422, ErrorCode.hook_timeout_after_retry, 'Failed to reach hook after maximum retries', { cause: err });
      throw internalError('Failed to reach hook', err);
    }
    if (response.status === 200 || response.status === 204) return readAnswer(response);
    await response.body?.cancel();
    if ((response.status === 429 || response.status === 503) && response.headers.get('retry-after')) {
      if (attempt < ATTEMPTS) continue;
      throw new ApiError(422, ErrorCode.hook_timeout_after_retry, 'Failed to reach hook after maximum retries');
    }
    if (response.status === 429 || response.status === 503) throw internalError('Service currently unavailable due to hook');
    if (response.status === 400) throw internalError('Invalid payload sent to hook');
    if (response.status === 401) throw internalError('Hook requires authorization token');
    throw internalError(`Unexpected status code returned from hook: ${response.status}`);
  }
}

async function readAnswer(response: Response): Promise<unknown> {
  const declared = Number(response.headers.get('content-length') ?? 'NaN');
  if (response.status === 204 || declared === 0) return {};
  if (!/^application\/json\b/i.test(response.headers.get('content-type') ?? '')) {
    await response.body?.cancel();
    throw new ApiError(500, ErrorCode.hook_payload_invalid_content_type, 'Invalid Content-Type: Expected application/json');
  }
  if (declared > ANSWER_LIMIT) {
    await response.body?.cancel();
    throw new ApiError(500, ErrorCode.hook_payload_over_size_limit, 'Payload size exceeded size limit');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > ANSWER_LIMIT) throw new ApiError(500, ErrorCode.hook_payload_over_size_limit, 'Payload size exceeded size limit');
    chunks.push(Buffer.from(chunk));
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw internalError('Hook returned malformed JSON', err);
  }
}
