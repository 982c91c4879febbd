// One POST to an SMS provider's REST API, with a timeout; the answer as JSON whatever the status.
export class SmsSendError extends Error {
  override readonly name = 'SmsSendError';
  constructor(readonly provider: string, message: string) {
    super(message);
  }
}

export async function postToProvider(
  provider: string,
  url: string,
  init: { headers: Record<string, string>; body: string; timeoutMs: number },
): Promise<{ status: number; body: Record<string, unknown> }> {
  let response: Response;
  try {
    response = await fetch(url, { method: 'POST', headers: init.headers, body: init.body, redirect: 'error', signal: AbortSignal.timeout(init.timeoutMs) });
  } catch (err) {
    throw new SmsSendError(provider, `${new URL(url).host} did not answer: ${(err as Error).message}`);
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? {} : JSON.parse(text);
  } catch {
    throw new SmsSendError(provider, `answered ${response.status} with something that is not JSON`);
  }
  return { status: response.status, body: body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {} };
}

export const form = (fields: Record<string, string>): string => new URLSearchParams(fields).toString();
export const FORM = 'application/x-www-form-urlencoded';
export const basicAuth = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
