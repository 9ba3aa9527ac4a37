// Start-up fast path. Importing oclif costs more than starting node itself, and `sign`,
// `webhooks sign` and `webhooks verify` need none of it. For these, flags are parsed from the
// SAME definitions (oclif.manifest.json) with node's util.parseArgs, and the same runner as the
// oclif command is called. Anything this parser does not fully understand (help, unknown,
// repeated or negated flags, a missing required flag, a value outside a flag's options) falls
// back to oclif, so usage errors and help stay oclif's.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { LOCAL_COMMANDS, type ParsedFlags } from './local-commands.js';
import { renderError } from './render-error.js';

interface ManifestFlag {
  name: string;
  char?: string;
  type: 'boolean' | 'option';
  required?: boolean;
  multiple?: boolean;
  options?: string[];
  default?: unknown;
}
interface ManifestCommand {
  flags: Record<string, ManifestFlag>;
  args: Record<string, unknown>;
}

/** Words that can start a fast command; anything else goes straight to oclif, unread. */
const FIRST_WORDS = new Set(Object.keys(LOCAL_COMMANDS).map((id) => id.split(':')[0]));

/** The command id and its flags, or null when oclif must handle this command line. */
export function parseFast(argv: string[], manifest: { commands: Record<string, ManifestCommand> }): { id: string; flags: ParsedFlags } | null {
  const nested = argv.length > 1 ? `${argv[0]}:${argv[1]}` : '';
  const id = nested in LOCAL_COMMANDS ? nested : argv[0] && argv[0] in LOCAL_COMMANDS ? argv[0] : null;
  if (!id) return null;
  const cmd = manifest.commands[id];
  if (!cmd || Object.keys(cmd.args ?? {}).length > 0) return null;
  const rest = argv.slice(id.split(':').length);
  if (rest.some((a) => a === '--help' || a === '-h' || a.startsWith('--no-'))) return null;

  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {};
  for (const f of Object.values(cmd.flags)) {
    if (f.multiple) return null;
    options[f.name] = { type: f.type === 'boolean' ? 'boolean' : 'string', ...(f.char ? { short: f.char } : {}) };
  }
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  try {
    const parsed = parseArgs({ args: rest, options, strict: true, allowPositionals: false, tokens: true });
    values = parsed.values;
    // parseArgs keeps the last of a repeated flag; oclif refuses it, so oclif decides.
    const seen = new Set<string>();
    for (const t of parsed.tokens) {
      if (t.kind !== 'option') continue;
      if (seen.has(t.name)) return null;
      seen.add(t.name);
    }
  } catch {
    return null;
  }
  const flags: ParsedFlags = {};
  for (const f of Object.values(cmd.flags)) {
    const v = values[f.name];
    if (Array.isArray(v)) return null;
    if (v === undefined) {
      if (f.required) return null;
      if (typeof f.default === 'string' || typeof f.default === 'boolean') flags[f.name] = f.default;
      else if (f.type === 'boolean') flags[f.name] = false;
      continue;
    }
    if (f.options && typeof v === 'string' && !f.options.includes(v)) return null;
    flags[f.name] = v;
  }
  // parseArgs takes `--data --json` as --data="--json"; oclif would not, so let oclif decide.
  for (const v of Object.values(flags)) if (typeof v === 'string' && v.startsWith('--')) return null;
  return { id, flags };
}

/** Runs the command and returns true, or returns false to hand the command line to oclif. */
export async function tryFastPath(argv: string[], manifestUrl: URL): Promise<boolean> {
  if (!argv[0] || !FIRST_WORDS.has(argv[0]) || process.env.CARDCTL_NO_FAST_PATH) return false;
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(manifestUrl, 'utf8'));
  } catch {
    return false;
  }
  const parsed = parseFast(argv, manifest);
  if (!parsed) return false;
  try {
    await LOCAL_COMMANDS[parsed.id]!(parsed.flags);
  } catch (err) {
    process.exitCode = renderError(err, parsed.flags.json === true, parsed.id);
  }
  return true;
}
