// Start-up fast path for EVERY command. Importing oclif costs more than starting node itself,
// and running a command needs none of it: the command line is parsed here from the SAME flag
// and argument definitions (oclif.manifest.json, which the build annotates with each flag's
// kind), and the same command class runs, built on src/cli/lite-oclif.ts instead of oclif.
// Anything this parser does not fully understand (help, an unknown command, unknown, repeated,
// grouped or negated flags, a missing required flag or argument, a value outside a flag's
// options or range, `--`, a value that looks like a flag) is handed to oclif, so help and
// usage errors stay oclif's. The decision is made before any command module is loaded.
import { readFileSync } from 'node:fs';

export interface ManifestFlag {
  name: string;
  char?: string;
  type: 'boolean' | 'option';
  kind?: 'boolean' | 'string' | 'integer' | 'custom';
  required?: boolean;
  multiple?: boolean;
  options?: string[];
  default?: unknown;
  exclusive?: string[];
  min?: number;
  max?: number;
  [key: string]: unknown;
}
export interface ManifestArg {
  name: string;
  required?: boolean;
  kind?: string;
  [key: string]: unknown;
}
export interface ManifestCommand {
  id?: string;
  flags: Record<string, ManifestFlag>;
  args: Record<string, ManifestArg>;
  strict?: boolean;
  relativePath?: string[];
  [key: string]: unknown;
}
export interface Manifest {
  commands: Record<string, ManifestCommand>;
}

export interface FastCommandLine {
  id: string;
  args: Record<string, string>;
  flags: Record<string, unknown>;
  /** the positional arguments, in order (oclif's `argv` of a parse) */
  argv: string[];
}

/** Keys of a flag or argument definition this parser understands; any other key sends the line to oclif. */
const FLAG_KEYS = new Set([
  'name',
  'char',
  'type',
  'kind',
  'required',
  'multiple',
  'options',
  'default',
  'exclusive',
  'min',
  'max',
  'description',
  'summary',
  'helpGroup',
  'hasDynamicHelp',
  'allowNo',
  'hidden',
]);
const ARG_KEYS = new Set(['name', 'required', 'kind', 'description', 'hidden']);

/** The longest run of leading words that names a command: `mock clock advance 60` -> mock:clock:advance. */
export function resolveCommandId(argv: readonly string[], manifest: Manifest): string | undefined {
  let found: string | undefined;
  for (let n = 1; n <= argv.length; n++) {
    const word = argv[n - 1]!;
    if (word.startsWith('-') || word.includes(':') || word === '') break;
    const id = argv.slice(0, n).join(':');
    if (Object.hasOwn(manifest.commands, id)) found = id;
  }
  return found;
}

const looksLikeFlag = (v: string): boolean => v.startsWith('-') && v !== '-';

/** The command and its parsed arguments and flags, or null when oclif must handle this command line. */
export function parseFast(argv: readonly string[], manifest: Manifest): FastCommandLine | null {
  const id = resolveCommandId(argv, manifest);
  if (!id) return null;
  const cmd = manifest.commands[id]!;
  if (cmd.strict === false) return null;
  const flagDefs = Object.values(cmd.flags ?? {});
  const argDefs = Object.values(cmd.args ?? {});
  if (
    flagDefs.some(
      (f) =>
        Object.keys(f).some((k) => !FLAG_KEYS.has(k)) ||
        f.hasDynamicHelp ||
        (f.kind !== 'boolean' && f.kind !== 'string' && f.kind !== 'integer'),
    )
  )
    return null;
  if (argDefs.some((a) => Object.keys(a).some((k) => !ARG_KEYS.has(k)) || a.kind !== 'string')) return null;

  const rest = argv.slice(id.split(':').length);
  const given = new Map<string, string[] | true>();
  const positionals: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const token = rest[i]!;
    if (!looksLikeFlag(token)) {
      positionals.push(token);
      continue;
    }
    if (token === '--' || token === '--help' || token === '-h') return null;
    // a negated flag (`--no-color` of `color`) is oclif's; a flag named `no-...` (`--no-input`) is ours
    if (token.startsWith('--no-') && !Object.hasOwn(cmd.flags, token.slice(2).split('=')[0]!)) return null;
    let def: ManifestFlag | undefined;
    let inline: string | undefined;
    if (token.startsWith('--')) {
      const eq = token.indexOf('=');
      const name = eq >= 0 ? token.slice(2, eq) : token.slice(2);
      if (eq >= 0) inline = token.slice(eq + 1);
      def = Object.hasOwn(cmd.flags, name) ? cmd.flags[name] : undefined;
    } else if (token.length === 2) {
      def = flagDefs.find((f) => f.char === token[1]);
    }
    if (!def) return null; // unknown, grouped (-vp) or glued (-pVALUE): oclif's rules
    const seen = given.get(def.name);
    if (def.type === 'boolean') {
      if (inline !== undefined || seen) return null;
      given.set(def.name, true);
      continue;
    }
    let value = inline;
    if (value === undefined) {
      if (i + 1 >= rest.length || looksLikeFlag(rest[i + 1]!)) return null;
      value = rest[++i]!;
    }
    if (seen && !def.multiple) return null; // oclif refuses a repeated flag
    // a multiple flag takes every following word in oclif: only `--flag value --other` is certain
    if (def.multiple && i + 1 < rest.length && !looksLikeFlag(rest[i + 1]!)) return null;
    given.set(def.name, [...(seen === true || seen === undefined ? [] : seen), value]);
  }

  if (positionals.length > argDefs.length) return null; // oclif: unexpected argument
  const args: Record<string, string> = {};
  for (const [i, a] of argDefs.entries()) {
    if (i < positionals.length) args[a.name] = positionals[i]!;
    else if (a.required) return null;
  }

  const flags: Record<string, unknown> = {};
  for (const f of flagDefs) {
    const v = given.get(f.name);
    if (v === undefined) {
      if (f.required) return null;
      if (f.default !== undefined) {
        if (typeof f.default !== 'string' && typeof f.default !== 'boolean' && typeof f.default !== 'number')
          return null;
        flags[f.name] = f.multiple ? [f.default] : f.default;
      }
      continue;
    }
    if (f.exclusive?.some((other) => given.has(other))) return null;
    if (v === true) {
      flags[f.name] = true;
      continue;
    }
    const values: unknown[] = [];
    for (const s of v) {
      if (f.options && !f.options.includes(s)) return null;
      if (f.kind === 'integer') {
        if (!/^-?\d+$/.test(s)) return null;
        const n = Number.parseInt(s, 10);
        if ((f.min !== undefined && n < f.min) || (f.max !== undefined && n > f.max)) return null;
        values.push(n);
      } else {
        values.push(s);
      }
    }
    flags[f.name] = f.multiple ? values : values[0];
  }
  return { id, args, flags, argv: positionals };
}

/** Set before a command module is loaded: src/cli/oclif.ts then builds it on the lite oclif (not imported here: it would load oclif). */
const FAST_PATH = Symbol.for('cardctl.fastPath');

/** The class of a command, built on the lite oclif (src/cli/lite-oclif.ts). */
interface FastCommand {
  id: string | undefined;
  preparsed: { args: Record<string, unknown>; flags: Record<string, unknown>; argv: string[] } | undefined;
  _run(): Promise<unknown>;
}

/** Loads a command module by its path in the package (the manifest's relativePath, e.g. `dist/commands/cards/get.js`). */
export type CommandLoader = (relativePath: string) => Promise<unknown>;

/** Starts what a command of the journal will need before its code loads (bin/run.js: a shared journal's connection), given its `--journal`. */
export type JournalStarter = (journalFlag: string | undefined) => Promise<void>;

/**
 * Runs the command and returns true, or returns false to hand the command line to oclif
 * (before anything of the command was loaded). `CARDCTL_NO_FAST_PATH=1` always hands over.
 * `load` imports the command module: by default the file at its path from the manifest's folder;
 * bin/run.js passes one that takes it from the start-up bundles (scripts/build-bundle.mjs), and
 * `startJournal`, called for a command that has `--journal` (the commands of the journal) first.
 */
export async function tryFastPath(
  argv: string[],
  manifestUrl: URL,
  load: CommandLoader = (rel) => import(new URL(rel, manifestUrl).href),
  startJournal?: JournalStarter,
): Promise<boolean> {
  if (!argv[0] || process.env.CARDCTL_NO_FAST_PATH) return false;
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(manifestUrl, 'utf8')) as Manifest;
  } catch {
    return false;
  }
  const line = parseFast(argv, manifest);
  const relativePath = line && manifest.commands[line.id]!.relativePath;
  if (!line || !relativePath) return false;
  (globalThis as Record<symbol, unknown>)[FAST_PATH] = true;
  if (startJournal && manifest.commands[line.id]!.flags.journal)
    await startJournal(line.flags.journal as string | undefined);
  const { default: CommandClass } = (await load(relativePath.join('/'))) as {
    default: new (argv: string[], config: unknown) => FastCommand;
  };
  const command = new CommandClass(argv.slice(line.id.split(':').length), undefined);
  command.id = line.id;
  command.preparsed = { args: line.args, flags: line.flags, argv: line.argv };
  await command._run();
  return true;
}
