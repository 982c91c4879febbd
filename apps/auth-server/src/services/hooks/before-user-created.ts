// The before-user-created hook (GoTrue's HOOK_BEFORE_USER_CREATED): every sign-up, by any method (password by
// email or phone, passwordless email or SMS, anonymous, OAuth and id_token), shows the hook the new user inside
// the transaction that creates it; a hook answering {"error": {"http_code", "message"}} rejects the sign-up and
// the transaction rolls back, so nothing of the user is left. Accounts an administrator creates or invites do
// not pass through it (they are no sign-up).
import { randomUUID } from 'node:crypto';
import type { UserRow } from '../../queries/columns';
import { serializeUser } from '../../serialize';
import type { ClientInfo } from '../platform/context';
import { type HookDeps, runHook } from './run';

export async function approveNewUser(deps: HookDeps, user: UserRow, client: ClientInfo): Promise<void> {
  if (!deps.config.hooks.beforeUserCreated) return;
  await runHook(deps, 'beforeUserCreated', {
    metadata: { uuid: randomUUID(), time: deps.clock.now().toISOString(), name: 'before-user-created', ip_address: client.ip },
    user: serializeUser(user, []),
  });
}
