// Email one-time tokens (reference §5.2): a random N-digit OTP; only hex SHA-224(email + OTP) is
// stored (with a pkce_ prefix for PKCE flows). The link carries the stored hash, so a clicked link
// and a typed code resolve to the same row. Single use, valid MAILER_OTP_EXP seconds from issue.
import { hashOneTimeToken, numericOtp } from '@keyzone/tokens';
import { ApiError, ErrorCode } from '../../errors';
import {
  clearAllTokens,
  clearTokenColumn,
  consumeOneTimeToken,
  findTokenSentAt,
  markTokenSent,
  upsertOneTimeToken,
  type ConsumedToken,
  type EmailTokenType,
} from '../../queries/email-tokens';
import type { Executor } from '../../queries/users';

export type { ConsumedToken, EmailTokenType };

export const PKCE_PREFIX = 'pkce_';

export interface IssuedToken {
  /** The numeric code the user may type. */
  otp: string;
  /** The stored value, also the link's `token` parameter. */
  tokenHash: string;
}

/** 429 over_email_send_rate_limit with GoTrue's message (reference §2.3). */
export function frequencyLimitError(seconds: number): ApiError {
  return new ApiError(
    429,
    ErrorCode.over_email_send_rate_limit,
    `For security purposes, you can only request this after ${Math.max(1, Math.ceil(seconds))} seconds.`,
  );
}

/**
 * Issues a token for one user and type, replacing any earlier one. With `minIntervalSeconds`
 * (SMTP_MAX_FREQUENCY) a send less than that long after the previous one is refused with 429;
 * the guard and the write are one conditional UPDATE.
 */
export async function issueEmailToken(
  tx: Executor,
  input: {
    userId: string;
    type: EmailTokenType;
    /** The address the token is bound to (hashed with the OTP). */
    relatesTo: string;
    otpLength: number;
    now: Date;
    pkce?: boolean;
    minIntervalSeconds?: number;
    /** A fixed code (SMS_TEST_OTP) instead of a random one. */
    otp?: string;
    /** The 429 for a send within minIntervalSeconds (SMS has its own code). */
    tooSoon?: (seconds: number) => ApiError;
  },
): Promise<IssuedToken> {
  const otp = input.otp ?? numericOtp(input.otpLength);
  const hash = hashOneTimeToken(input.relatesTo, otp);
  const tokenHash = input.pkce ? `${PKCE_PREFIX}${hash}` : hash;
  const interval = input.minIntervalSeconds ?? 0;
  const notSentAfter = interval > 0 ? new Date(input.now.getTime() - interval * 1000) : undefined;
  const ok = await markTokenSent(tx, { userId: input.userId, type: input.type, tokenHash, sentAt: input.now, notSentAfter });
  if (!ok) {
    const sentAt = await findTokenSentAt(tx, input.userId, input.type);
    const remaining = sentAt ? (sentAt.getTime() + interval * 1000 - input.now.getTime()) / 1000 : interval;
    throw (input.tooSoon ?? frequencyLimitError)(remaining);
  }
  await upsertOneTimeToken(tx, { userId: input.userId, type: input.type, tokenHash, relatesTo: input.relatesTo, issuedAt: input.now });
  return { otp, tokenHash };
}

export type TokenProof =
  | { tokenHash: string }
  | { email: string; otp: string }
  | { phone: string; otp: string };

/**
 * Consumes the token proven by a link hash or by email + typed code. Returns undefined when no
 * unexpired token of the given types matches (the caller answers 403 otp_expired).
 */
export async function consumeEmailToken(
  tx: Executor,
  input: { proof: TokenProof; types: EmailTokenType[]; now: Date; otpExpSeconds: number },
): Promise<ConsumedToken | undefined> {
  const issuedAfter = new Date(input.now.getTime() - input.otpExpSeconds * 1000);
  let consumed: ConsumedToken | undefined;
  if ('tokenHash' in input.proof) {
    if (input.proof.tokenHash === '') return undefined;
    consumed = await consumeOneTimeToken(tx, { tokenHashes: [input.proof.tokenHash], types: input.types, issuedAfter });
  } else {
    const address = 'email' in input.proof ? input.proof.email : input.proof.phone;
    const hash = hashOneTimeToken(address, input.proof.otp);
    consumed = await consumeOneTimeToken(tx, {
      tokenHashes: [hash, `${PKCE_PREFIX}${hash}`],
      types: input.types,
      relatesTo: address,
      issuedAfter,
    });
  }
  if (consumed) await clearTokenColumn(tx, consumed.userId, consumed.type);
  return consumed;
}

/** Clears every pending email token of a user (after a verification, on password change). */
export async function clearEmailTokens(tx: Executor, userId: string): Promise<void> {
  await clearAllTokens(tx, userId);
}
