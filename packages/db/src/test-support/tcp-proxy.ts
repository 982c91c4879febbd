// A TCP proxy in front of the test PostgreSQL server, so a test can take "the database" away and
// bring it back (services must answer 503 meanwhile and recover on their own) without stopping the
// server other test files use. pause() drops every open connection and refuses new ones.
import net, { type AddressInfo, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  urlFor(url: string): string;
  /** Closes every proxied connection and refuses new ones (ECONNREFUSED). */
  pause(): Promise<void>;
  /** Listens again on the same port. */
  resume(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    track(client);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const port = (server.address() as AddressInfo).port;
  let listening = true;
  const stop = async () => {
    if (listening) {
      listening = false;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
    }
  };
  return {
    port,
    urlFor(url) {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(port);
      return parsed.toString();
    },
    pause: stop,
    async resume() {
      if (!listening) {
        await listen(port);
        listening = true;
      }
    },
    close: stop,
  };
}
