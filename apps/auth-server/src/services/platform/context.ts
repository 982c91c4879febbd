// What a service needs to know about the caller, without Express types.
export interface ClientInfo {
  ip: string;
  userAgent: string | null;
  /** The key request and email limits count against (RATE_LIMIT_HEADER's value, else the IP). */
  limitKey?: string;
}
