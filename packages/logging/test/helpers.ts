import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { Writable } from 'node:stream';

/** A pino destination (a real Writable, as pino-pretty needs one) that keeps every written line. */
export function captureStream(): Writable & { lines: string[]; records(): Record<string, unknown>[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      for (const line of chunk.toString().split('\n')) if (line !== '') lines.push(line);
      callback();
    },
  });
  return Object.assign(stream, {
    lines,
    records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
  });
}

/** Polls `condition` on every turn of the event loop until it holds (or fails after `timeoutMs`). */
export async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export async function listen(app: Express): Promise<{ base: string; server: Server; close(): Promise<void> }> {
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
