// The exit code of a `--dry-run` (docs/output.md, "Exit codes"): 0 when everything would be sent
// or answered from the journal with a success; otherwise the code the real run would end with for
// what can be known without sending: a refusal of the money rules (5: the key sent with another
// request), a journal answer that is an error (its own code: 5 refused, 7 unknown), a live
// operation with nobody to confirm it or a batch held back (2); a batch, as batchExitCode reads
// its rows. Errors before (a usage error, a bad id) exit as they always do. The codes come from
// the one map, src/cli/exit-codes.ts.
import type { BatchDryRun, DryRun, RequestDryRun } from '../client/dry-run.js';
import type { Result } from '../output/render.js';
import { batchExitCode } from './batch.js';
import { EXIT, exitCodeFor } from './exit-codes.js';
import type { ErrorKind } from '../errors.js';
import { CardctlError } from '../errors.js';

/** A confirmation refused where the mode is known (an unknown mode is asked of the API first: it may be a test key). */
const refusedConfirmation = (c: { mode: string; by: string; error?: unknown } | null | undefined): unknown =>
  c && c.by === 'refused' && c.mode !== 'unknown' ? c.error : undefined;

export function requestExitCode(d: RequestDryRun): number {
  const m = d.money;
  if (!m) return EXIT.ok;
  if (m.error) return exitCodeFor(m.error);
  const refused = refusedConfirmation(m.confirmation);
  return refused ? exitCodeFor(refused) : EXIT.ok;
}

export function batchDryRunExitCode(d: BatchDryRun): number {
  if (d.held_back) return exitCodeFor(d.held_back.error);
  const refused = d.totals.send > 0 ? refusedConfirmation(d.confirmation) : undefined;
  if (refused) return exitCodeFor(refused);
  const kinds = new Set<ErrorKind>();
  let unknown = 0;
  for (const r of d.rows) {
    if (!(r.error instanceof CardctlError)) continue;
    if (r.error.kind === 'outcome_unknown') unknown++;
    else kinds.add(r.error.kind);
  }
  return batchExitCode({ kinds: [...kinds], unknown });
}

/** The dry run as the command's result: its JSON document, its text, and its exit code. */
export async function dryRunResult(d: DryRun): Promise<Result> {
  const [out, { result, outcome }] = await Promise.all([import('../output/dry-run.js'), import('../output/render.js')]);
  if (d.kind === 'batch') {
    const code = batchDryRunExitCode(d);
    return outcome(
      result(out.batchDryRunJson(d, code), () => out.batchDryRunText(d, code)),
      { exitCode: code },
    );
  }
  const code = requestExitCode(d);
  return outcome(
    result(out.requestDryRunJson(d, code), () => out.requestDryRunText(d, code)),
    { exitCode: code },
  );
}
