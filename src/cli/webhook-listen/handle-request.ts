// One request to the listener, start to end: refused while stopping (503) or when not a POST
// (405, not counted); otherwise a delivery, verified, answered (or forwarded, and answered with
// the target's answer), printed and counted.
import type http from 'node:http';
import { receiveDelivery, send, type DeliveryLine, type Verification } from './delivery.js';
import { forwardAndAnswer } from './forward.js';
import type { ListenerRun } from './run-state.js';

export interface RequestHandling {
  run: ListenerRun;
  verification: Verification;
  forwardTarget?: URL;
  print: (line: DeliveryLine) => void;
  stderr: NodeJS.WritableStream;
}

export function requestHandler(
  h: RequestHandling,
): (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void> {
  return async (req, res) => {
    if (h.run.closing) {
      req.resume();
      return send(res, 503, { received: false, reason: 'listener_stopping' }, { Connection: 'close' });
    }
    if (req.method !== 'POST') {
      req.resume();
      h.stderr.write(`ignored ${req.method} ${req.url}: only POST deliveries are handled (answered 405).\n`);
      return send(res, 405, { received: false, reason: 'method_not_allowed' }, { Allow: 'POST' });
    }
    const { line, body } = await receiveDelivery(req, h.verification);
    if (!line.valid || body === undefined) send(res, line.status, { received: false, reason: line.reason });
    else if (!h.forwardTarget) send(res, 200, { received: true });
    else await forwardAndAnswer(h.forwardTarget, req, body, res, line, h.run.forwards);
    h.print(line);
    h.run.count(res, line.valid);
  };
}
