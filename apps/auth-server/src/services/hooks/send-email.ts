// The send email hook (GoTrue's HOOK_SEND_EMAIL): with it on, the mails that carry a token go to the hook instead
// of SMTP, as {user, email_data: {token, token_hash, redirect_to, email_action_type, site_url, token_new,
// token_hash_new}}, called inside the flow's transaction: a hook that fails rolls the token back and the request
// fails, so no flow goes on without its mail. `site_url` is the auth server's external URL (API_EXTERNAL_URL), the
// base of `/verify?token=<token_hash>&type=<email_action_type>&redirect_to=…` links, as GoTrue sends it. A secure
// email change is one call: `token`/`token_hash` for the new address, `token_new`/`token_hash_new` for the current
// one (GoTrue's naming).
import { internalError } from '../../errors';
import { findUserById, type Executor } from '../../queries/users';
import { serializeUser } from '../../serialize';
import { type HookDeps, runHook } from './run';

export interface HookEmailData {
  token: string;
  token_hash: string;
  redirect_to: string;
  email_action_type: string;
  token_new?: string;
  token_hash_new?: string;
}

export async function sendEmailThroughHook(
  deps: HookDeps,
  tx: Executor,
  input: { userId: string; emailData: HookEmailData },
): Promise<void> {
  const user = await findUserById(tx, input.userId);
  if (!user) throw internalError('the user of an email token no longer exists');
  await runHook(deps, 'sendEmail', {
    user: serializeUser(user, []),
    email_data: { token_new: '', token_hash_new: '', ...input.emailData, site_url: deps.config.api.externalUrl },
  });
}
