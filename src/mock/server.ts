// node:http wiring: the pipeline for every request, an envelope even for requests node cannot
// parse, and a tick that applies what falls due on the simulated clock.
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { handleRequest } from './pipeline.js';
import { MESSAGES } from '../contract/errors.js';
import type { Runtime } from './runtime.js';
import { consolePorts, isConsolePath } from './console-port.js';

const TICK_MS = 1000;

function rawEnvelope(status: number, reason: string, message: string, head: boolean): string {
  const body = JSON.stringify({ success: false, message, errors: {} });
  // an answer to HEAD has headers only, or the client reads the body as a second response
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${head ? '' : body}`;
}

export interface RunningServer {
  server: Server;
  port: number;
  close(): Promise<void>;
}

export function listen(rt: Runtime, host: string, port: number): Promise<RunningServer> {
  const server = createServer({ requestTimeout: 120_000, headersTimeout: 60_000 }, (req, res) => {
    // the web console's own paths (src/console/), once it was asked for; never in the request log
    const consolePort = consolePorts.get(rt);
    if (consolePort?.enabled && isConsolePath(req.url ?? '')) void consolePort.handle(req, res);
    else void handleRequest(rt, req, res);
  });
  // An idle kept-alive connection stays open 30 s (Node's default is 5 s). A client's pool (Node's
  // http agent keeps connections alive since Node 19, with no idle limit of its own) that hands a
  // request to a connection just as the server closes it gets ECONNRESET for a request never read:
  // a test suite pausing a few seconds between calls to the mock hit that. The race is the
  // client's, but a longer idle time makes it as rare as a 30 s pause.
  server.keepAliveTimeout = 30_000;
  server.on('clientError', (err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket) => {
    if (!socket.writable) return socket.destroy();
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const head = err.rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
    socket.end(
      tooLarge
        ? rawEnvelope(431, 'Request Header Fields Too Large', 'The request headers are too large.', head)
        : rawEnvelope(400, 'Bad Request', 'The request is not valid HTTP.', head),
    );
  });
  // CONNECT (a proxy tunnel) is no route of the API: answer the unmatched-route 404 envelope and
  // close, instead of node's default of dropping the socket without a byte
  server.on('connect', (_req, socket: Socket) => {
    socket.on('error', () => socket.destroy());
    if (!socket.writable) return socket.destroy();
    socket.end(rawEnvelope(404, 'Not Found', MESSAGES.endpointNotFound, false));
  });
  const tick = setInterval(() => {
    try {
      if (rt.runDue()) rt.persist();
      else if (rt.options.stateFile) rt.persist(); // changes made off a request (none expected) are saved too
      rt.nonces.prune({ sim: rt.now(), real: rt.options.realNow() });
    } catch (err) {
      process.stderr.write(`cardctl mock: ${(err as Error).message}\n`);
    }
  }, TICK_MS);
  tick.unref();
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      const actual = typeof address === 'object' && address ? address.port : port;
      resolve({
        server,
        port: actual,
        close: () =>
          new Promise<void>((done) => {
            clearInterval(tick);
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
