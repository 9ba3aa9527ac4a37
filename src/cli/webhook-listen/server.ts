// The HTTP server on loopback: started on the asked port (a taken port or address said in
// cardctl's words), its URL, and closed with every connection.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { CardctlError, usageError } from '../../errors.js';
import { send } from './delivery.js';

export const LISTEN_PATH = '/webhooks';

export interface LoopbackServer {
  server: http.Server;
  /** where deliveries go: http://HOST:PORT/webhooks */
  url: string;
  port: number;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;

export async function startServer(
  port: number,
  host: string,
  handle: Handler,
  stderr: NodeJS.WritableStream,
): Promise<LoopbackServer> {
  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      stderr.write(`error while handling a delivery: ${(err as Error).message}\n`);
      send(res, 500, { received: false, reason: 'listener_error' });
    });
  });
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    else socket.destroy();
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host.replace(/^\[|\]$/g, ''), () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new CardctlError(`port ${port} on ${host} is already in use.`, {
        kind: 'unavailable',
        hint: 'Pick another port, or --port 0 for a free one.',
      });
    if (code === 'EADDRNOTAVAIL' || code === 'EACCES')
      throw usageError(
        `cannot listen on ${host}:${port} (${code}).`,
        'Use 127.0.0.1 and a port above 1023, or --port 0.',
      );
    throw err;
  }
  const address = server.address() as AddressInfo;
  const hostPart = net.isIPv6(address.address) ? `[${address.address}]` : address.address;
  return { server, url: `http://${hostPart}:${address.port}${LISTEN_PATH}`, port: address.port };
}

export function closeServer(server: http.Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
