// `cardctl webhooks listen`: a loopback receiver that verifies each delivery over its raw bytes
// with the endpoint secret (delivery.ts), prints one line per delivery (output.ts), optionally
// forwards it unchanged to the user's app (forward.ts), and optionally registers itself on a
// running mock (mock-endpoint.ts). Lives outside src/commands because oclif treats every file
// there as a command. The secret is never printed; a body is parsed only after its signature matched.
import { checkNotForwardingToItself, checkOptions, loadSecret, type ListenIO, type ListenOptions } from './options.js';
import { findMock, registerOnMock, removeFromMock } from './mock-endpoint.js';
import { deliveryItems, listeningBanner, listeningItem, stoppedNotes } from './output.js';
import { requestHandler } from './handle-request.js';
import { ListenerRun } from './run-state.js';
import { closeServer, startServer } from './server.js';
import { ItemQueue, streamResult, type StreamItem, type StreamResult } from '../../output/stream.js';

export type { ListenIO, ListenOptions } from './options.js';

/**
 * Starts the listener and returns once it listens: the command's result is the stream of what it
 * says (src/output/stream.ts: the {"listening"} item, then one item per delivery), which ends
 * after --max-events deliveries were handled, or on SIGINT/SIGTERM, with the exit code: 0, or 3
 * when --max-events was reached and a delivery failed verification. Errors before listening (no
 * secret, no mock, port in use) are thrown.
 */
export async function runListen(opts: ListenOptions, io: ListenIO): Promise<StreamResult> {
  const forwardTarget = checkOptions(opts);
  const { secret, from: secretFrom } = await loadSecret(opts, io.env);
  const control = opts.mock ? await findMock(opts, io.env) : undefined;

  const run = new ListenerRun(opts.maxEvents);
  const items = new ItemQueue<StreamItem>();
  const item = deliveryItems(secretFrom);
  const handle = requestHandler({
    run,
    verification: { secret, tolerance: opts.tolerance, now: io.now ?? Date.now },
    forwardTarget,
    print: (line) => items.push(item(line)),
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
  const listening = {
    url,
    endpointId,
    secretFrom,
    tolerance: opts.tolerance,
    forwardTarget,
    maxEvents: opts.maxEvents,
  };
  io.stderr.write(listeningBanner(listening));
  items.push(listeningItem(listening));

  // Once stopped (or once the output stopped reading): close, and the items end after the last
  // delivery that came in meanwhile.
  let code = 0;
  let finished: Promise<void> | undefined;
  const finish = (): Promise<void> =>
    (finished ??= (async () => {
      try {
        await close();
        // it registered itself: it removes itself, so the mock does not keep retrying a closed port
        if (endpointId && control) await removeFromMock(control, endpointId, io.stderr);
      } finally {
        items.close();
      }
    })());
  void run.stopped.then((c) => {
    code = c;
    // a failure to close is thrown where the output ends (below)
    finish().catch(() => {});
  });
  async function* output(): AsyncGenerator<StreamItem> {
    try {
      yield* items;
    } finally {
      await finish();
    }
  }
  return streamResult(output(), () => ({
    notes: stoppedNotes(opts.json, run.handled, run.failed),
    exitCode: code,
  }));
}
