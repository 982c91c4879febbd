import type { Deps } from '../deps';
import { invalidCredentials, notFound } from '../errors';
import { findGroupById, type GroupRow } from '../queries/groups';
import { findLoginCandidates, findUserById, upgradePasswordHash, type UserRow } from '../queries/users';
import { DummyPasswordCheck, hashPassword, verifyPassword } from './passwords';

const dummies = new Map<number, DummyPasswordCheck>();

function dummyFor(cost: number): DummyPasswordCheck {
  let dummy = dummies.get(cost);
  if (!dummy) dummies.set(cost, (dummy = new DummyPasswordCheck(cost)));
  return dummy;
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
 * Checks credentials. Every failure (unknown group, unknown or deleted user, wrong password) is the same 401
 * and costs at least one bcrypt comparison at the configured cost. A legacy NicTool hash that matches is
 * replaced by a bcrypt hash before the login succeeds.
 */
export async function authenticate(deps: Deps, login: string, password: string): Promise<{ user: UserRow; group: GroupRow }> {
  const { username, groupName } = parseLoginName(login, deps.config.http.defaultGroup);
  const cost = deps.config.security.bcryptCost;
  const candidates = await findLoginCandidates(deps.db, username, groupName);
  let bcryptCompared = false;
  for (const candidate of candidates) {
    const stored = { hash: candidate.password_hash, scheme: candidate.password_scheme, salt: candidate.salt };
    bcryptCompared ||= stored.scheme === 'bcrypt';
    if (!(await verifyPassword(stored, password, candidate.username))) continue;
    if (stored.scheme !== 'bcrypt') {
      await upgradePasswordHash(deps.db, candidate.id, stored.hash, await hashPassword(password, cost), deps.clock.now());
    }
    const [user, group] = await Promise.all([findUserById(deps.db, candidate.id), findGroupById(deps.db, candidate.group_id)]);
    if (!user || !group) break;
    return { user, group };
  }
  if (!bcryptCompared) await dummyFor(cost).run(password);
  throw invalidCredentials();
}

/** The signed-in user and group, fresh (GET /session, GET /user). */
export async function currentLogin(deps: Deps, userId: number): Promise<{ user: UserRow; group: GroupRow }> {
  const user = await findUserById(deps.db, userId);
  const group = user ? await findGroupById(deps.db, user.group_id) : undefined;
  if (!user || !group) throw notFound('User not found');
  return { user, group };
}
