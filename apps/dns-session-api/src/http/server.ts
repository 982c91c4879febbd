import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

/**
 * Listens with the keep-alive timeout of the interface (spec Part 8): Node then answers every keep-alive
 * request with `Keep-Alive: timeout=<n>`. headersTimeout must exceed keepAliveTimeout.
 */
export function listen(app: Express, options: { host: string; port: number; keepAliveTimeoutSeconds: number }): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(options.port, options.host);
    server.keepAliveTimeout = options.keepAliveTimeoutSeconds * 1000;
    server.headersTimeout = Math.max(server.headersTimeout, server.keepAliveTimeout + 1000);
    server.once('listening', () => resolve(server));
    server.once('error', reject);
  });
}

export function urlOf(server: Server): string {
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

export function close(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve()));
    server.closeAllConnections();
  });
}
