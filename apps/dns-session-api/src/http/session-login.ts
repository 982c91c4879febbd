// Starting a cookie session for a signed-in user: POST /session (password or access token) and the OpenID Connect
// callback both end here, so every sign-in gets the same session row, cookie and fixation protection.
import type { Request } from 'express';
import type { Deps } from '../deps';
import type { UserRow } from '../queries/users';
import { reserveSessionId } from '../services/access/sessions';

/** Stores the session (a new id if the request came with one) and returns its row id; Set-Cookie follows. */
export async function startCookieSession(deps: Deps, req: Request, login: { user: UserRow; authToken?: string }): Promise<number> {
  const rowId = await reserveSessionId(deps);
  // A new id at login (no session fixation) whenever a stored session came with the request. Without one,
  // express-session has just generated a fresh id that no client has seen, so there is nothing to replace.
  if (req.session.rowId) await regenerate(req);
  req.session.rowId = rowId;
  req.session.userId = login.user.id;
  req.session.groupId = login.user.group_id;
  req.session.isAdmin = login.user.is_admin;
  if (login.authToken !== undefined) req.session.authToken = login.authToken;
  await save(req);
  return rowId;
}

function regenerate(req: Request): Promise<void> {
  return new Promise((resolve, reject) => req.session.regenerate((err) => (err ? reject(err) : resolve())));
}

function save(req: Request): Promise<void> {
  return new Promise((resolve, reject) => req.session.save((err) => (err ? reject(err) : resolve())));
}
