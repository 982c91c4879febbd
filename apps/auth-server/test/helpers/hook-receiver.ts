// A hook endpoint on 127.0.0.1 for the auth hook tests: every call's signature is checked with the
// `standardwebhooks` package (an implementation independent of ours) before the call is recorded; a call that
// fails the check is answered 401. Each path answers what the test says it should.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface HookCall {
  path: string;
  payload: Record<string, unknown>;
  headers: Record<string, string>;
}

export interface HookAnswer {
  status?: number;
  body?: unknown;
  /** Sent as is (with `contentType`), in place of a JSON body. */
  raw?: string;
  contentType?: string;
  headers?: Record<string, string>;
  /** Never answer (the hook's timeout must end the call). */
  hang?: boolean;
}

export interface HookReceiver {
  url: string;
  /** The `v1,whsec_…` secret to configure (HOOK_<NAME>_SECRETS). */
  secret: string;
  calls: HookCall[];
  callsTo(path: string): HookCall[];
  /** What `path` answers from now on (default: 200 `{}`). */
  on(path: string, answer: (call: HookCall) => HookAnswer): void;
  close(): Promise<void>;
}

export async function startHookReceiver(): Promise<HookReceiver> {
  const key = Buffer.from(Array.from({ length: 32 }, (_, i) => (i * 37 + 11) % 256)).toString('base64');
  const webhook = new Webhook(key);
  const calls: HookCall[] = [];
  const answers = new Map<string, (call: HookCall) => HookAnswer>();
  const sockets = new Set<Socket>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    let payload: Record<string, unknown>;
    try {
      payload = webhook.verify(body, headers) as Record<string, unknown>;
    } catch (err) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: (err as Error).message }));
      return;
    }
    const call = { path: req.url ?? '/', payload, headers };
    calls.push(call);
    const answer: HookAnswer = (answers.get(call.path) ?? (() => ({})))(call);
    if (answer.hang) return;
    const text = answer.raw ?? JSON.stringify(answer.body ?? {});
    res.writeHead(answer.status ?? 200, { 'content-type': answer.contentType ?? 'application/json', ...answer.headers }).end(text);
  };
  const server = createServer((req, res) => void handle(req, res));
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    secret: `v1,whsec_${key}`,
    calls,
    callsTo: (path) => calls.filter((c) => c.path === path),
    on: (path, answer) => void answers.set(path, answer),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
