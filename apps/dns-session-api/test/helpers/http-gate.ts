// An HTTP proxy in front of PowerDNS's API for the publishing tests: it records every request (method, URL, JSON
// body) and holds those the test chooses (say, every call about one zone) until it lets them go, so "a nameserver
// that is slow for one zone" is a state the test sets, not a race.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface GateRequest {
  method: string;
  url: string;
  body: unknown;
}

export class HttpGate {
  readonly requests: GateRequest[] = [];
  waiting = 0;
  private holding: ((request: GateRequest) => boolean) | undefined;
  private held: Array<() => void> = [];
  private server: Server | undefined;

  constructor(private readonly target: string) {}

  async listen(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as { port: number };
    return `http://127.0.0.1:${port}`;
  }

  /** Holds every request `matches` picks from now on, until release(). */
  hold(matches: (request: GateRequest) => boolean): void {
    this.holding = matches;
  }

  release(): void {
    this.holding = undefined;
    for (const go of this.held.splice(0)) go();
  }

  close(): Promise<void> {
    this.release();
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    let parsed: unknown;
    try {
      parsed = body ? JSON.parse(body.toString('utf8')) : undefined;
    } catch {
      parsed = body?.toString('utf8');
    }
    const request: GateRequest = { method: req.method ?? 'GET', url: decodeURIComponent(req.url ?? ''), body: parsed };
    this.requests.push(request);
    if (this.holding?.(request)) {
      this.waiting += 1;
      await new Promise<void>((resolve) => this.held.push(resolve));
      this.waiting -= 1;
    }
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => name !== 'host' && name !== 'content-length')) as Record<string, string>;
    try {
      const answer = await fetch(`${this.target}${req.url}`, { method: req.method, headers, body });
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
      res.end(Buffer.from(await answer.arrayBuffer()));
    } catch {
      res.writeHead(502).end();
    }
  }
}
