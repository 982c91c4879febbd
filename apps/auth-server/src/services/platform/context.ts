// What a service needs to know about the caller, without Express types.
import type { SessionRow, UserRow } from '../../queries/columns';

export interface ClientInfo {
  ip: string;
  userAgent: string | null;
  /** The key request and email limits count against (RATE_LIMIT_HEADER's value, else the IP). */
  limitKey?: string;
}

/** A signed-in caller as the factor and passkey services take it: the user, their session, where they call from. */
export interface SignedInCaller {
  user: UserRow;
  session: SessionRow | undefined;
  client: ClientInfo;
}
