// A real forward proxy on loopback for the network tests, and a TLS front for the mock.
// The proxy speaks HTTP/1.1 absolute-form (GET http://host/path) and CONNECT tunnels. Host
// names are resolved through `routes` only (a name that resolves nowhere, like
// api.cardctl.invalid, is reachable through this proxy alone). Every byte a client sends to
// the proxy is kept in `received`, to check what travelled in clear.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { join } from 'node:path';
import tls from 'node:tls';

export interface TestProxy {
  url: string;
  port: number;
  /** every byte clients sent to the proxy, in order */
  received(): string;
  /** request lines seen: `GET http://...` or `CONNECT host:443` */
  requests: string[];
  close(): Promise<void>;
}

export async function startProxy(
  routes: Record<string, { host: string; port: number }>,
  opts: { refuseConnect?: boolean } = {},
): Promise<TestProxy> {
  const chunks: Buffer[] = [];
  const requests: string[] = [];
  const sockets = new Set<net.Socket>();
  const route = (hostPort: string): { host: string; port: number } | undefined => routes[hostPort.toLowerCase()];
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const target = new URL(req.url ?? '/');
    const to = route(target.host);
    if (!to) {
      res.writeHead(502).end('no route');
      return;
    }
    const up = http.request(
      {
        host: to.host,
        port: to.port,
        method: req.method,
        path: `${target.pathname}${target.search}`,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on('error', () => res.writeHead(502).end());
    req.pipe(up);
  });
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('data', (d: Buffer) => chunks.push(Buffer.from(d)));
  });
  server.on('connect', (req, client: net.Socket, head: Buffer) => {
    requests.push(`CONNECT ${req.url}`);
    const to = route(req.url ?? '');
    if (opts.refuseConnect || !to) {
      client.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const up = net.connect(to.port, to.host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) up.write(head);
      up.pipe(client);
      client.pipe(up);
    });
    up.on('error', () => client.destroy());
    client.on('error', () => up.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received: () => Buffer.concat(chunks).toString('latin1'),
    requests,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

export interface TestPki {
  caFile: string;
  key: string;
  cert: string;
}

/** A CA and a server certificate for `host`, signed by it, made with openssl in `dir`. */
export function makePki(dir: string, host: string): TestPki {
  const f = (name: string): string => join(dir, name);
  const ossl = (...args: string[]): void => void execFileSync('openssl', args, { stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ossl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=cardctl test CA',
  );
  ossl('req', ...ec, '-keyout', f('server.key'), '-out', f('server.csr'), '-subj', `/CN=${host}`);
  writeFileSync(f('ext.cnf'), `subjectAltName=DNS:${host}\n`);
  ossl(
    'x509',
    '-req',
    '-in',
    f('server.csr'),
    '-CA',
    f('ca.pem'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-out',
    f('server.pem'),
    '-days',
    '2',
    '-extfile',
    f('ext.cnf'),
  );
  return {
    caFile: f('ca.pem'),
    key: readFileSync(f('server.key'), 'utf8'),
    cert: readFileSync(f('server.pem'), 'utf8'),
  };
}

/** TLS in front of a plain HTTP server (the mock): decrypts and forwards each connection. */
export async function startTlsFront(
  pki: TestPki,
  backendPort: number,
): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = tls.createServer({ key: pki.key, cert: pki.cert }, (secure) => {
    const up = net.connect(backendPort, '127.0.0.1');
    secure.pipe(up);
    up.pipe(secure);
    up.on('error', () => secure.destroy());
    secure.on('error', () => up.destroy());
  });
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/**
 * A server certificate for `host` signed by the CA of `makePki(dir, ...)`, valid from `start` to
 * `end` (openssl's YYYYMMDDHHMMSSZ): an expired or a not-yet-valid one (`openssl ca` sets dates
 * in the past or far ahead, which `x509 -days` cannot).
 */
export function makeDatedCert(dir: string, host: string, start: string, end: string): { key: string; cert: string } {
  const f = (name: string): string => join(dir, `dated-${start}-${name}`);
  const ossl = (...args: string[]): void => void execFileSync('openssl', args, { stdio: 'pipe', cwd: dir });
  writeFileSync(f('index.txt'), '');
  writeFileSync(f('serial'), '01\n');
  writeFileSync(
    f('ca.cnf'),
    [
      '[ca]',
      'default_ca = c',
      '[c]',
      `database = ${f('index.txt')}`,
      `new_certs_dir = ${dir}`,
      `serial = ${f('serial')}`,
      'default_md = sha256',
      'policy = p',
      'x509_extensions = ext',
      'unique_subject = no',
      '[p]',
      'commonName = supplied',
      '[ext]',
      `subjectAltName = DNS:${host}`,
      '',
    ].join('\n'),
  );
  ossl(
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    f('key.pem'),
    '-out',
    f('csr.pem'),
    '-subj',
    `/CN=${host}`,
  );
  ossl(
    'ca',
    '-batch',
    '-config',
    f('ca.cnf'),
    '-cert',
    join(dir, 'ca.pem'),
    '-keyfile',
    join(dir, 'ca.key'),
    '-in',
    f('csr.pem'),
    '-out',
    f('cert.pem'),
    '-startdate',
    start,
    '-enddate',
    end,
  );
  return { key: readFileSync(f('key.pem'), 'utf8'), cert: readFileSync(f('cert.pem'), 'utf8') };
}
