import type { Deps } from '../../deps';
import { ApiError, invalidCredentials, notFound } from '../../errors';
import { findGroupById } from '../../queries/groups';
import { nextSessionId } from '../../queries/sessions';
import { findLoginUser, findUserById, upgradePasswordHash, type UserRow } from '../../queries/users';
import type { Caller } from './caller';
import { DummyPasswordCheck, hashPassword, verifyPassword } from './passwords';

export interface GroupRef {
  id: number;
  name: string;
}

const dummies = new Map<number, DummyPasswordCheck>();

function dummyFor(cost: number): DummyPasswordCheck {
  let dummy = dummies.get(cost);
  if (!dummy) dummies.set(cost, (dummy = new DummyPasswordCheck(cost)));
  return dummy;
}

/** Computes the dummy hash ahead of the first failed login, so that one is not slower than the rest. */
export function prepareDummyPasswordCheck(cost: number): void {
  dummyFor(cost).prepare();
}

/** 'alice@example.com' → alice in group example.com; 'alice' → the configured default group. */
export function parseLoginName(input: string, defaultGroup: string): { username: string; groupName: string } {
  const at = input.indexOf('@');
  if (at < 0) return { username: input, groupName: defaultGroup };
  // NicTool ignores anything after a second '@'.
  const rest = input.slice(at + 1);
  const second = rest.indexOf('@');
  return { username: input.slice(0, at), groupName: second < 0 ? rest : rest.slice(0, second) };
}

/**
 * Checks credentials. A login name means at most one user (group names are unique service-wide), so a login
 * costs one password check. Every failure (unknown group, unknown or deleted user, wrong password) is the same
 * 401 and costs at least one bcrypt comparison at the configured cost. A legacy NicTool hash that matches is
 * replaced by a bcrypt hash before the login succeeds.
 */
export async function authenticate(deps: Deps, login: string, password: string): Promise<{ user: UserRow; group: GroupRef }> {
  const { username, groupName } = parseLoginName(login, deps.config.http.defaultGroup);
  const cost = deps.config.security.bcryptCost;
  const found = await findLoginUser(deps.db, username, groupName);
  if (!found) {
    await dummyFor(cost).run(password);
    throw invalidCredentials();
  }
  const stored = { hash: found.password_hash, scheme: found.password_scheme, salt: found.salt };
  if (!(await verifyPassword(stored, password, found.username))) {
    if (stored.scheme !== 'bcrypt') await dummyFor(cost).run(password);
    throw invalidCredentials();
  }
  if (stored.scheme !== 'bcrypt') {
    await upgradePasswordHash(deps.db, found.id, stored.hash, await hashPassword(password, cost), deps.clock.now());
  }
  const { group_name: name, password_hash: _h, password_scheme: _s, salt: _salt, ...user } = found;
  return { user: { ...user, deleted_at: null }, group: { id: found.group_id, name } };
}

/**
 * POST /session {access_token}: the auth server's token in exchange for a cookie session. Every failure (auth
 * tokens off, a bad, expired or logged-out token, an unlinked user) is the login's one 401.
 */
export async function authenticateWithAccessToken(deps: Deps, token: string): Promise<{ user: UserRow; group: GroupRef }> {
  if (!deps.authTokens) throw invalidCredentials();
  let caller;
  try {
    caller = await deps.authTokens.callerFor(token, await deps.authTokens.verify(token));
  } catch (err) {
    if (err instanceof ApiError && err.code === 'unavailable') throw err;
    throw invalidCredentials();
  }
  return currentLogin(deps, caller);
}

/** The signed-in user and group (GET /session, GET /user): as read with the session in this request. */
export async function currentLogin(deps: Deps, caller: Caller): Promise<{ user: UserRow; group: GroupRef }> {
  if (caller.user && caller.groupName !== undefined) return { user: caller.user, group: { id: caller.groupId, name: caller.groupName } };
  const user = await findUserById(deps.db, caller.userId);
  const group = user ? await findGroupById(deps.db, user.group_id) : undefined;
  if (!user || !group) throw notFound('User not found');
  return { user, group: { id: group.id, name: group.name } };
}

/** The id of the session row a login is about to store (taken before the row, so the cookie can carry it). */
export function reserveSessionId(deps: Pick<Deps, 'db'>): Promise<number> {
  return nextSessionId(deps.db);
}
