// Captcha (reference §1.2): with SECURITY_CAPTCHA_ENABLED the sign-up, password sign-in and mail/SMS routes
// need a captcha token, checked with the provider's siteverify API (hCaptcha or Cloudflare Turnstile; the URL
// is overridable). A missing token, a refusal, a timeout or an unreachable provider are all 400 captcha_failed.
import type { Deps } from '../../deps';
import { ApiError, ErrorCode } from '../../errors';

const SITEVERIFY = {
  hcaptcha: 'https://hcaptcha.com/siteverify',
  turnstile: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
} as const;

const refused = (reason: string) => new ApiError(400, ErrorCode.captcha_failed, `captcha protection: request disallowed (${reason})`);

/** The token from `captcha_token` or `gotrue_meta_security.captcha_token` (as auth-js sends it). */
export function captchaTokenOf(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  const meta = record.gotrue_meta_security;
  const nested = meta !== null && typeof meta === 'object' ? (meta as Record<string, unknown>).captcha_token : undefined;
  const token = typeof nested === 'string' && nested !== '' ? nested : record.captcha_token;
  return typeof token === 'string' && token !== '' ? token : undefined;
}

export async function verifyCaptcha(deps: Pick<Deps, 'config'>, input: { token: string | undefined; ip: string }): Promise<void> {
  const { captcha } = deps.config.security;
  if (!captcha.enabled) return;
  if (!input.token) throw refused('no captcha response (captcha_token) found in request');
  const provider = captcha.provider ?? 'hcaptcha';
  const url = captcha.url ?? SITEVERIFY[provider];
  const form = new URLSearchParams({ secret: captcha.secret ?? '', response: input.token });
  if (input.ip) form.set('remoteip', input.ip);
  let answer: { success?: unknown; 'error-codes'?: unknown };
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      redirect: 'error',
      signal: AbortSignal.timeout(Math.max(1, captcha.timeout * 1000)),
    });
    answer = (await response.json()) as typeof answer;
  } catch (err) {
    throw refused(`${provider} did not answer: ${(err as Error).name === 'TimeoutError' ? 'timeout' : (err as Error).message}`);
  }
  if (answer.success !== true) {
    const codes = Array.isArray(answer['error-codes']) ? answer['error-codes'].join(', ') : 'verification failed';
    throw refused(codes);
  }
}
