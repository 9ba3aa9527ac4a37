// On/off switches of the mock commands are boolean flags (`--default`, `--no-default`). The older
// spelling with a value (`--default true`, `--default=false`) is rewritten to them before
// parsing, so scripts written for it keep working.
export function switchArgv(argv: readonly string[], names: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const eq = /^--([\w-]+)=(true|false)$/.exec(a);
    if (eq && names.includes(eq[1]!)) {
      out.push(eq[2] === 'true' ? `--${eq[1]}` : `--no-${eq[1]}`);
      continue;
    }
    const bare = /^--([\w-]+)$/.exec(a);
    const next = argv[i + 1];
    if (bare && names.includes(bare[1]!) && (next === 'true' || next === 'false')) {
      out.push(next === 'true' ? a : `--no-${bare[1]}`);
      i++;
      continue;
    }
    out.push(a);
  }
  return out;
}
