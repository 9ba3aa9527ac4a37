// `cardctl config`: the settings a command would run with here, each with where its value came
// from (src/client/settings.ts, resolved exactly as openSession resolves them), and every
// environment variable cardctl reads, with whether it is set (src/cli/environment.ts). No
// secret command runs and no value of a secret is ever shown.
import { CardctlError } from '../errors.js';
import type { Io } from '../io.js';
import type { Setting } from '../client/settings.js';
import { result, type Result } from '../output/render.js';
import { ENVIRONMENT, isSet } from './environment.js';

export interface ConfigFlags {
  profile?: string;
  'ca-file'?: string;
  timeout?: string;
  retries?: number;
  journal?: string;
}

export async function configListing(flags: ConfigFlags, io: Io, env: NodeJS.ProcessEnv = process.env): Promise<Result> {
  const { resolveSettings } = await import('../client/settings.js');
  let settings: readonly Setting[] = [];
  let problem: { message: string; hint: string | null } | null = null;
  try {
    settings = (
      await resolveSettings(
        {
          profile: flags.profile,
          caFile: flags['ca-file'],
          timeout: flags.timeout,
          retries: flags.retries,
          journal: flags.journal,
          env,
        },
        { secret: false },
      )
    ).list;
  } catch (err) {
    // no credentials, a variable out of shape: the listing still shows the environment, and why
    if (!(err instanceof CardctlError) || err.kind !== 'usage') throw err;
    problem = { message: err.message, hint: err.hint ?? null };
  }
  const environment = ENVIRONMENT.map((v) => {
    const set = isSet(v, env);
    return {
      name: v.alias ? `${v.name} / ${v.alias}` : v.name,
      set: set !== undefined,
      ...(set && v.alias ? { set_as: set } : {}),
      secret: v.secret === true,
      group: v.group,
      what: v.what,
    };
  });
  const json = {
    settings: Object.fromEntries(
      settings.map((s) => [s.name, { value: s.value ?? null, source: s.source, from: s.from }]),
    ),
    problem,
    environment,
  };
  return result(json, async (out) => {
    const { formatTable } = await import('../output/text.js');
    const parts: string[] = [];
    if (settings.length > 0)
      parts.push(
        await formatTable(
          settings,
          [
            { header: 'SETTING', get: (s) => s.name },
            { header: 'VALUE', get: (s) => s.value ?? '-' },
            { header: 'SOURCE', get: (s) => s.source },
            { header: 'FROM', get: (s) => s.from },
          ],
          out,
        ),
      );
    else parts.push(`No settings: ${problem?.message ?? ''}\n${problem?.hint ? `${problem.hint}\n` : ''}`);
    parts.push(
      await formatTable(
        environment,
        [
          { header: 'VARIABLE', get: (v) => v.name },
          { header: 'SET', get: (v) => (v.set ? (v.secret ? 'yes (secret: not shown)' : 'yes') : '-') },
          { header: 'WHAT IT DOES', get: (v) => v.what },
        ],
        out,
      ),
    );
    return parts.join('\n');
  });
}
