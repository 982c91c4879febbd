// The two decision hooks (GoTrue's HOOK_PASSWORD_VERIFICATION_ATTEMPT and HOOK_MFA_VERIFICATION_ATTEMPT): after
// a password or an MFA code is checked, the hook learns whether it was right and may reject the attempt, right
// or wrong (e.g. after too many failures). A rejected password answers 400 invalid_credentials with the hook's
// message, and with `should_logout_user` ends the user's sessions; a rejected MFA code ends the user's sessions
// and answers 403 mfa_verification_rejected, as GoTrue does.
import { ApiError, ErrorCode } from '../../errors';
import { deleteSessions } from '../../queries/sessions';
import { type HookDeps, isRejection, runHook } from './run';

const PASSWORD_REJECTED = 'Further password verification attempts will be rejected.';
const MFA_REJECTED = 'Further MFA verification attempts will be rejected.';

export async function passwordVerificationAttempt(deps: HookDeps, input: { userId: string; valid: boolean }): Promise<void> {
  const output = await runHook(deps, 'passwordVerificationAttempt', { user_id: input.userId, valid: input.valid });
  const rejection = isRejection(output);
  if (!rejection) return;
  if (output.should_logout_user === true) await deleteSessions(deps.db, input.userId);
  throw new ApiError(400, ErrorCode.invalid_credentials, rejection.message ?? PASSWORD_REJECTED);
}

export async function mfaVerificationAttempt(
  deps: HookDeps,
  input: { userId: string; factorId: string; factorType: string; valid: boolean },
): Promise<void> {
  const output = await runHook(deps, 'mfaVerificationAttempt', {
    factor_id: input.factorId, factor_type: input.factorType, user_id: input.userId, valid: input.valid,
  });
  const rejection = isRejection(output);
  if (!rejection) return;
  await deleteSessions(deps.db, input.userId);
  throw new ApiError(403, ErrorCode.mfa_verification_rejected, rejection.message ?? MFA_REJECTED);
}
