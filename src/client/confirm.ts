// The one confirmation of a live money operation (PRODUCT.md, "Live safety"), for a single
// request (src/client/client.ts) and for a whole batch (src/cli/batch.ts): `--yes` confirms;
// otherwise a person is asked on a terminal; with nobody to ask, nothing is sent.
import { usageError, type CardctlError } from '../errors.js';
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

/** How a live operation would be confirmed: by `--yes`, by asking a person, or refused (nobody to ask): the one decision, also for `--dry-run`. */
export type ConfirmationPlan = { by: 'yes' } | { by: 'ask' } | { refused: CardctlError };

export function confirmationPlan(c: LiveConfirmation): ConfirmationPlan {
  if (c.yes) return { by: 'yes' };
  if (!c.ask)
    return {
      refused: usageError(
        `refusing to send ${c.what} without confirmation.`,
        `Pass --yes to confirm it (${whyNoPrompt()}).`,
      ),
    };
  return { by: 'ask' };
}

export async function confirmLive(c: LiveConfirmation): Promise<void> {
  const plan = confirmationPlan(c);
  if ('refused' in plan) throw plan.refused;
  if (plan.by === 'yes') return;
  const ok = await c.ask!(`This is ${c.what}. Send ${c.many ? 'them' : 'it'}? [y/N] `);
  if (!ok)
    throw usageError(
      `nothing was sent: ${c.many ? 'the live batch was' : 'the live operation was'} not confirmed.`,
      'Run it again and answer "y", or pass --yes.',
    );
}
