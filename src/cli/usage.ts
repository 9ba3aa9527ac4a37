// Usage lines from a command's manifest entry (oclif.manifest.json), for `--help`, usage
// errors and docs/reference.md. Pure: no oclif. What is required is written bare, what is
// optional in brackets; flags every API command shares are summed up as `[API FLAGS]`; and a
// flag that replaces a group of others (`--batch FILE`, exclusive of the single-operation
// flags) gets a line of its own: the other way to run the command.

export interface ManifestFlag {
  name: string;
  char?: string;
  type: 'boolean' | 'option';
  required?: boolean;
  multiple?: boolean;
  options?: string[];
  helpValue?: string;
  helpGroup?: string;
  exclusive?: string[];
  hidden?: boolean;
  description?: string;
  /** added by the build: string, integer, boolean or custom */
  kind?: string;
}

export interface ManifestArg {
  name: string;
  required?: boolean;
}

export interface ManifestCommand {
  id: string;
  flags: Record<string, ManifestFlag>;
  args: Record<string, ManifestArg>;
  strict?: boolean;
}

/** Flags shown as `[API FLAGS]`: the ones src/cli/api-flags.ts gives every API command. */
const SHARED_GROUPS = new Set(['API']);
/** Flags every command has (src/cli/base-command.ts: --json, --no-input, ...): only `[--json]` stands for them. */
const isGlobal = (f: ManifestFlag): boolean => f.helpGroup === 'GLOBAL' || f.name === 'json';

/** The placeholder of a flag's value: its helpValue, its options when few, else from its name. */
export function valueName(f: ManifestFlag): string {
  if (f.helpValue) return f.helpValue.replace(/^<(.*)>$/, '$1');
  if (f.options && f.options.length > 0 && f.options.length <= 6) return f.options.join('|');
  const n = f.name;
  if (n === 'profile') return 'NAME';
  if (n === 'data') return 'DATA';
  if (n === 'idempotency-key') return 'KEY';
  if (n === 'idempotency-prefix') return 'PREFIX';
  if (/(^|-)(customer|card|product|merchant|endpoint|event)$/.test(n)) return 'ID';
  if (/amount/.test(n)) return 'MINOR';
  if (/(^|-)(file|batch|from|payload|request|junit)$/.test(n) || /\bfile\b/i.test(f.description ?? '')) return 'FILE';
  if (/(timeout|seconds|tolerance|expires-in)/.test(n)) return 'SECONDS';
  if (/(url|webhook|forward-to)$/.test(n)) return 'URL';
  if (f.kind === 'integer') return 'N';
  return n.toUpperCase().replaceAll('-', '_');
}

function flagWord(f: ManifestFlag): string {
  const word = f.type === 'boolean' ? `--${f.name}` : `--${f.name} ${valueName(f)}`;
  return f.multiple ? `${word} ...` : word;
}

/** The words typed for the command: `cards issue`. */
export function commandWords(c: ManifestCommand): string {
  return c.id.replaceAll(':', ' ');
}

/**
 * The usage lines of a command (without `cardctl`): one, or two when a flag replaces a group
 * of others (the `--batch` way).
 */
export function usageLines(c: ManifestCommand): string[] {
  const flags = Object.values(c.flags).filter((f) => !f.hidden);
  const shared = flags.filter((f) => SHARED_GROUPS.has(f.helpGroup ?? ''));
  // a group of many optional field flags (the CustomerInput fields) is summed up too
  const fieldGroup = (f: ManifestFlag): boolean => f.helpGroup === 'CUSTOMER';
  const own = flags.filter((f) => !shared.includes(f) && !isGlobal(f) && !fieldGroup(f));
  const tail = [
    ...(flags.some(fieldGroup) ? ['[--FIELD VALUE ...]'] : []),
    ...(shared.length ? ['[API FLAGS]'] : flags.some((f) => f.name === 'json') ? ['[--json]'] : []),
  ];
  const needs = new Set(requiredUnlessOther(c));
  const argWord = (a: ManifestArg): string =>
    a.required || needs.has(a.name.toUpperCase()) ? a.name.toUpperCase() : `[${a.name.toUpperCase()}]`;
  // a command that is not strict takes any number of its last argument
  const args = Object.values(c.args ?? {}).map((a, i, all) =>
    c.strict === false && i === all.length - 1 ? argWord(a).replace(/^(\[?)(\w+)(\]?)$/, '$1$2...$3') : argWord(a),
  );
  // the other way: a flag exclusive of at least two others, with the flags of its own help group
  const other = own.find((f) => (f.exclusive?.length ?? 0) >= 2 && f.type === 'option');
  const otherGroup = other ? own.filter((f) => f !== other && f.helpGroup && f.helpGroup === other.helpGroup) : [];
  const excluded = new Set(other?.exclusive ?? []);
  const words = (list: ManifestFlag[], mustHave: (f: ManifestFlag) => boolean): string[] => [
    ...list.filter(mustHave).map(flagWord),
    ...list.filter((f) => !mustHave(f)).map((f) => `[${flagWord(f)}]`),
  ];
  const single = own.filter((f) => f !== other && !otherGroup.includes(f));
  // on the single-operation line, a flag the command needs unless the other way is taken is required
  const first = [
    commandWords(c),
    ...args,
    ...words(single, (f) => Boolean(f.required) || needs.has(f.name)),
    ...tail,
  ].join(' ');
  if (!other) return [first];
  const otherArgs = Object.values(c.args ?? {})
    .filter((a) => a.required)
    .map(argWord);
  const second = [
    commandWords(c),
    ...otherArgs,
    `--${other.name} ${valueName(other)}`,
    ...words(otherGroup, (f) => Boolean(f.required)),
    ...words(
      single.filter((f) => !excluded.has(f.name)),
      (f) => Boolean(f.required),
    ),
    ...tail,
  ].join(' ');
  return [first, second];
}

/**
 * Flags (and ARGUMENTS) a command needs unless its other way (`--batch`) is taken. oclif cannot mark them
 * required (they are not, with --batch), and the manifest has no place for it, so here.
 */
export const REQUIRED_UNLESS_BATCH: Record<string, string[]> = {
  'cards:issue': ['customer', 'amount'],
  'cards:recharge': ['CARD', 'amount'], // upper case: an argument
};

function requiredUnlessOther(c: ManifestCommand): string[] {
  return REQUIRED_UNLESS_BATCH[c.id.replaceAll(' ', ':')] ?? []; // oclif's help hands the id with spaces
}
