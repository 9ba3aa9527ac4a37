// The one confirmation of a live money operation (PRODUCT.md, "Live safety"), for a single
// request (src/client/client.ts) and for a whole batch (src/cli/batch.ts): `--yes` confirms;
// otherwise a person is asked on a terminal; with nobody to ask, nothing is sent.
import { usageError } from '../errors.js';
import { whyNoPrompt } from '../no-input.js';

export interface LiveConfirmation {
  /** what would be sent, e.g. `a LIVE money operation: POST URL with profile "p"` */
  what: string;
  /** several operations (a batch): "Send them?" */
  many?: boolean;
  /** `--yes` */
  yes?: boolean;
  /** asks a person; undefined when nobody can answer (no terminal) */
  ask?: (question: string) => Promise<boolean>;
}

export async function confirmLive(c: LiveConfirmation): Promise<void> {
  if (c.yes) return;
  if (!c.ask)
    throw usageError(
      `refusing to send ${c.what} without confirmation.`,
      `Pass --yes to confirm it (${whyNoPrompt()}).`,
    );
  const ok = await c.ask(`This is ${c.what}. Send ${c.many ? 'them' : 'it'}? [y/N] `);
  if (!ok)
    throw usageError(
      `nothing was sent: ${c.many ? 'the live batch was' : 'the live operation was'} not confirmed.`,
      'Run it again and answer "y", or pass --yes.',
    );
}
