// The global flags of every API command (PRODUCT.md, "Commands"), shared by the resource
// commands. `--json` comes from BaseCommand.
import { Flags } from '@oclif/core';

export const apiFlags = {
  profile: Flags.string({ char: 'p', description: 'profile to use (default: CARDCTL_API_KEY/SECRET, CARDCTL_PROFILE, then the default profile)', helpGroup: 'API' }),
  verbose: Flags.boolean({ char: 'v', description: 'print each attempt on stderr: canonical string, headers, answer, retry decisions (never the secret)', default: false, helpGroup: 'API' }),
  retries: Flags.integer({ description: 'retries for connection errors, 409 in_flight, 429, 503 (and 500 on money operations)', default: 3, min: 0, max: 10, helpGroup: 'API' }),
  yes: Flags.boolean({ description: 'confirm a live money operation without asking', default: false, helpGroup: 'API' }),
};

export interface ApiFlagValues {
  profile?: string;
  verbose: boolean;
  retries: number;
  yes: boolean;
}

/** The session options of src/client/session.ts, from parsed flags. */
export function sessionOptions(flags: ApiFlagValues): { profile?: string; verbose: boolean; retries: number; yes: boolean } {
  return { profile: flags.profile, verbose: flags.verbose, retries: flags.retries, yes: flags.yes };
}
