// Setup cases: doctor's checks (src/client/doctor.ts), run as they are, each reported as one
// case. Doctor's six probes are the reach; clock, key, mode and scopes are read from them.
import { runDoctor, type Check } from '../doctor.js';
import type { Harness } from './harness.js';

/** Per probe, as doctor uses. */
const PROBE_TIMEOUT_MS = 10_000;

/** Doctor's checks that are setup cases (the journal is not: smoke journals nothing). */
const SETUP_CHECKS = ['credentials', 'reach', 'clock', 'key', 'mode', 'scopes'] as const;

const EXPECTED: Record<(typeof SETUP_CHECKS)[number], string> = {
  credentials: 'a test key, its secret and a base URL',
  reach: 'the API answers',
  clock: 'within 300 s of the server (Date header)',
  key: 'the key is accepted (signature verified)',
  mode: 'the server treats the key as a test key',
  scopes: 'the key holds every scope the smoke test uses',
};

/** Runs the setup cases; true when none failed (warnings pass, with their detail). */
export async function runSetup(h: Harness): Promise<boolean> {
  h.beginCapture();
  const before = h.requestsUsed;
  const started = performance.now();
  const report = await runDoctor({
    resolve: async () => h.credentials,
    client: () => h.probeClient(PROBE_TIMEOUT_MS),
    unresolvedOps: async () => ({ file: '', mine: 0, others: 0 }),
  });
  const elapsed = Math.round(performance.now() - started);
  const exchange = h.exchange();
  let ok = true;
  for (const name of SETUP_CHECKS) {
    const c: Check | undefined = report.checks.find((x) => x.name === name);
    if (!c) continue;
    const got = c.status === 'warn' ? `warning: ${c.detail}${c.hint ? ` (${c.hint})` : ''}` : c.detail;
    // the probes' time is the reach's; the other checks read the same answers
    const time_ms = name === 'reach' ? elapsed : 0;
    const requests = name === 'reach' ? h.requestsUsed - before : 0;
    if (c.status === 'fail') {
      ok = false;
      h.record({
        group: 'setup',
        name,
        status: 'failed',
        expected: EXPECTED[name],
        got: c.hint ? `${got} ${c.hint}` : got,
        time_ms,
        requests,
        kind: c.kind ?? 'unexpected',
        ...(exchange ? { details: exchange } : {}),
      });
    } else if (c.status === 'skipped') {
      h.record({
        group: 'setup',
        name,
        status: 'skipped',
        expected: EXPECTED[name],
        got: `not run: ${c.detail}`,
        time_ms,
        requests,
      });
    } else {
      h.record({ group: 'setup', name, status: 'passed', expected: EXPECTED[name], got, time_ms, requests });
    }
  }
  return ok;
}
