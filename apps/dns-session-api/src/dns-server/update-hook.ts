// The shape of an RFC 2136 UPDATE handler, so the listener can run without one (updates answered NOTIMP).
import type { Deps } from '../deps';
import type { TsigKeyInUse } from '../services/access/tsig-keys';
import type { RawMessage } from './message';

export type UpdateHandler = (
  deps: Deps,
  request: RawMessage,
  buf: Buffer,
  key: TsigKeyInUse | undefined,
  answer: (rcode: number) => Buffer,
) => Promise<Buffer>;
