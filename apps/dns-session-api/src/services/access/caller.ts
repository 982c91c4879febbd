import type { UserRow } from '../../queries/users';

/** Who is asking: the signed-in user as the session store loaded them (fresh from the database each request). */
export interface Caller {
  userId: number;
  groupId: number;
  isAdmin: boolean;
  /** dns.sessions.id: the integer session id of the login response. */
  sessionId: number;
  /** The caller's own row and group name, read with the session (saves a query when they read themselves). */
  user?: UserRow;
  groupName?: string;
  /** The client's address (behind trusted proxies, the client's rather than the proxy's), for the audit history. */
  ip?: string;
  /** Set when the request came with an API token (PowerDNS-compatible API): the history names it. */
  apiToken?: { id: number; name: string };
  /** Set when the change came in a DNS UPDATE signed with a TSIG key (issue 44): the history names the key. */
  tsigKey?: { id: number; name: string };
  /** A system actor (the secondary refresher, issue 44) acting without a user: the history names it, user_id null. */
  system?: string;
}
