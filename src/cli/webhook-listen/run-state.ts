// The count of a listener run, and how it ends: after --max-events deliveries (once the last
// answer went out: 0, or 3 when any failed verification), or on SIGINT/SIGTERM (0).
import type http from 'node:http';

export class ListenerRun {
  handled = 0;
  failed = 0;
  /** set once the run ends: a request that still comes is answered 503 */
  closing = false;
  /** the aborts of forwards under way (--forward-to), cut short when the listener closes */
  readonly forwards = new Set<() => void>();
  /** resolves with the exit code */
  readonly stopped: Promise<number>;
  private readonly maxEvents: number | undefined;
  private stop: (code: number) => void = () => {};

  constructor(maxEvents: number | undefined) {
    this.maxEvents = maxEvents;
    this.stopped = new Promise<number>((resolve) => (this.stop = resolve));
  }

  /** Counts one delivery; once the last was answered, stops. */
  count(res: http.ServerResponse, valid: boolean): void {
    this.handled += 1;
    if (!valid) this.failed += 1;
    if (this.maxEvents === undefined || this.handled < this.maxEvents) return;
    this.closing = true;
    const done = () => this.stop(this.failed > 0 ? 3 : 0);
    if (res.writableFinished) done();
    else res.once('close', done);
  }

  /**
   * Installed once listening; they stay installed (as in `mock start`): a second delivery of
   * the signal (conf's exit hook re-raises it) must not kill the process mid-close.
   */
  stopOnSignals(): void {
    const onSignal = (): void => this.stop(0);
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }

  /** Takes no more deliveries and cuts the forwards under way short. */
  endDeliveries(): void {
    this.closing = true;
    for (const abort of this.forwards) abort();
  }
}
