// What a service needs to know about the caller, without Express types.
export interface ClientInfo {
  ip: string;
  userAgent: string | null;
}
