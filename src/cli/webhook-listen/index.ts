// `cardctl webhooks listen`: a loopback receiver that verifies each delivery over its raw bytes
// with the endpoint secret (delivery.ts), prints one line per delivery (output.ts), optionally
// forwards it unchanged to the user's app (forward.ts), and optionally registers itself on a
// running mock (mock-endpoint.ts). Lives outside src/commands because oclif treats every file
// there as a command. The secret is never printed; a body is parsed only after its signature matched.
import { checkNotForwardingToItself, checkOptions, loadSecret, type ListenIO, type ListenOptions } from './options.js';
import { findMock, registerOnMock, removeFromMock } from './mock-endpoint.js';
import { deliveryPrinter, printListening, printStopped } from './output.js';
import { requestHandler } from './handle-request.js';
import { ListenerRun } from './run-state.js';
import { closeServer, startServer } from './server.js';

export type { ListenIO, ListenOptions } from './options.js';

/**
 * Runs the listener until --max-events deliveries were handled, or SIGINT/SIGTERM.
 * Resolves with the exit code: 0, or 3 when --max-events was reached and a delivery failed
 * verification. Errors before listening (no secret, no mock, port in use) are thrown.
 */
export async function runListen(opts: ListenOptions, io: ListenIO): Promise<number> {
  const forwardTarget = checkOptions(opts);
  const { secret, from: secretFrom } = await loadSecret(opts, io.env);
  const control = opts.mock ? await findMock(opts, io.env) : undefined;

  const run = new ListenerRun(opts.maxEvents);
  const handle = requestHandler({
    run,
    verification: { secret, tolerance: opts.tolerance, now: io.now ?? Date.now },
    forwardTarget,
    print: deliveryPrinter(io, opts.json, secretFrom),
    stderr: io.stderr,
  });
  const { server, url, port } = await startServer(opts.port, opts.host, handle, io.stderr);
  const close = async (): Promise<void> => {
    run.endDeliveries();
    await closeServer(server);
  };

  let endpointId: string | null = null;
  try {
    checkNotForwardingToItself(forwardTarget, port, opts.forwardTo);
    if (control) endpointId = await registerOnMock(control, url, io.stderr);
  } catch (err) {
    await close();
    throw err;
  }

  run.stopOnSignals();
  printListening(io, {
    url,
    endpointId,
    secretFrom,
    tolerance: opts.tolerance,
    forwardTarget,
    maxEvents: opts.maxEvents,
    json: opts.json,
  });
  const code = await run.stopped;
  await close();
  // it registered itself: it removes itself, so the mock does not keep retrying a closed port
  if (endpointId && control) await removeFromMock(control, endpointId, io.stderr);
  printStopped(io, opts.json, run.handled, run.failed);
  return code;
}
