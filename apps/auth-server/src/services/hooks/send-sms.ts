// The send SMS hook (GoTrue's HOOK_SEND_SMS): with it on, every code that would go to the SMS provider goes to the
// hook instead, as {user, sms: {otp}}, inside the caller's transaction: a hook that fails rolls the code back and
// the request fails (500, or the hook's own error), as a refusing provider does. The budgets apply as before.
import { internalError } from '../../errors';
import { findUserById, type Executor } from '../../queries/users';
import { serializeUser } from '../../serialize';
import { type HookDeps, runHook } from './run';

export async function sendSmsThroughHook(deps: HookDeps, tx: Executor, input: { userId: string; otp: string }): Promise<void> {
  const user = await findUserById(tx, input.userId);
  if (!user) throw internalError('the user of an SMS code no longer exists');
  await runHook(deps, 'sendSms', { user: serializeUser(user, []), sms: { otp: input.otp } });
}
