// A free loopback port for a server a test starts itself (Squid, sshd, PostgreSQL): asked of the
// kernel, then given back at once for the server to take.
import net from 'node:net';

export async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
