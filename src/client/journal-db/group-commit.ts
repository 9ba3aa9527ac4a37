// The --batch rows' writes to the journal, committed together (src/client/journal.ts): every write
// asked for before the next turn of the event loop goes into one transaction (one sync of the
// WAL), and each row goes on when it is committed, so a single command beside the batch waits for
// one such transaction at most. Stopped (an interrupted command exiting), the answers waiting are
// committed and the op records waiting refused: a row is sent only once its operation is recorded,
// so none of those is sent.
import { CardctlError } from '../../errors.js';

interface Waiting {
  write: () => Promise<void>;
  done: (err?: unknown) => void;
  /** an op record: its row is sent once it is committed */
  sends: boolean;
}

export class GroupCommit {
  private waiting: Waiting[] = [];
  private stopped = false;

  /** `commit`: the writes in one transaction (it throws what the journal says of a failure). */
  constructor(private readonly commit: (writes: ReadonlyArray<() => Promise<void>>) => Promise<void>) {}

  /** Resolves once `write` is committed with the others waiting beside it. */
  add(write: () => Promise<void>, sends: boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.stopped) return reject(interrupted());
      this.waiting.push({ write, done: (err) => (err === undefined ? resolve() : reject(err)), sends });
      if (this.waiting.length === 1) setImmediate(() => void this.flush());
    });
  }

  /** Commits what waits now. */
  async flush(): Promise<void> {
    const group = this.waiting;
    if (group.length === 0) return;
    this.waiting = [];
    try {
      await this.commit(group.map((g) => g.write));
    } catch (err) {
      for (const g of group) g.done(err);
      return;
    }
    for (const g of group) g.done();
  }

  /** The answers waiting committed, the op records waiting refused, and nothing more taken. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const g of this.waiting) if (g.sends) g.done(interrupted());
    this.waiting = this.waiting.filter((g) => !g.sends);
    await this.flush();
  }

  /** Throws when stopped (a single command's op record is refused as the batch's are). */
  refuseWhenStopped(): void {
    if (this.stopped) throw interrupted();
  }
}

const interrupted = (): CardctlError =>
  new CardctlError('the command was interrupted: this operation was not recorded, and not sent.', {
    kind: 'unexpected',
    code: 'interrupted',
  });
