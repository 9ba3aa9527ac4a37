// The tour of `cardctl demo`, one file per section, run in the order of SECTIONS below.
//
// Adding a section (one capability, a few commands a reader should learn):
// 1. Copy a short one (80-ci-smoke.ts) to NN-your-topic.ts; NN is its place in the tour (gaps
//    are left on purpose: pick a free number between its neighbours). Export
//    `section: Section = { title: 'Topic: what it shows', async run(ctx) { ... } }`.
// 2. Import it here and put it in SECTIONS at that place. 99-books stays last: it checks that
//    the mock's books balance after everything before it.
// 3. One `await r.step({ name, title, argv, expectExit?, grep?, check })` per command. `check`
//    verifies what the step promises against the mock's own books (ctx.control, ctx.wallet,
//    ctx.counts), not only the CLI's output: read the `key  value` block (keyValues), a table
//    (tableRows) or `--json` (bodyJson), and `expect(condition, message)`. A command that must
//    keep running while others do (a waiting issue, a listener) is `r.start(...)`, then
//    `r.wait(...)` or `r.stop(...)`. Secrets go on stdin (`input` + `display`), never in argv.
// 4. What earlier sections left you (ctx.ids): profiles `test` (default) and `live` on this
//    mock, an approved customer (ids.customer), a terminated first card (ids.card). Issue your
//    own card if you need an active one (issueArgv(ctx.ids)), with your own idempotency keys
//    (`demo-<topic>-N`), and write data files with ctx.write(name, text). A mock fault you add
//    must be consumed in your section (use --count 1). A section that needs what a machine may
//    lack says so in one line and returns: `r.skip(why, howToSee)` (52-shared-journal.ts without a
//    PostgreSQL: ctx.sharedJournal() answers why there is none; the summary lists the skip).
// 5. `npm run build && node bin/run.js demo` must pass; test/demo/demo.test.ts checks the tour.
import type { Section, TourContext } from '../context.js';
import { section as profiles } from './10-profiles.js';
import { section as customers } from './20-customers.js';
import { section as cards } from './30-cards.js';
import { section as liveMode } from './40-live-mode.js';
import { section as unknownOutcome } from './50-unknown-outcome.js';
import { section as sharedJournal } from './52-shared-journal.js';
import { section as mistakes } from './55-mistakes.js';
import { section as scripting } from './57-scripting.js';
import { section as signatures } from './60-signatures.js';
import { section as mockRequests } from './65-mock-requests.js';
import { section as webhooks } from './70-webhooks.js';
import { section as ciSmoke } from './80-ci-smoke.js';
import { section as snapshots } from './90-snapshots.js';
import { section as books } from './99-books.js';

export const SECTIONS: readonly Section[] = [
  profiles,
  customers,
  cards,
  liveMode,
  unknownOutcome,
  sharedJournal,
  mistakes,
  scripting,
  signatures,
  mockRequests,
  webhooks,
  ciSmoke,
  snapshots,
  books,
];

/** Runs every section in order; a failed step throws (StepFailed) and ends the tour. */
export async function runTour(ctx: TourContext, sections: readonly Section[] = SECTIONS): Promise<void> {
  for (const s of sections) {
    ctx.r.section(s.title);
    await s.run(ctx);
  }
}
