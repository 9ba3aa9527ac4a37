// The shell examples of the README and docs/*.md, as docs/README.md defines them: every ```sh
// block runs unless the line before it is `<!-- not run: WHY -->`; its last command may end with
// `# exit N`; `<!-- expect: REGEX -->` lines right after it check its output.

export interface DocBlock {
  /** 1-based line of the opening fence */
  line: number;
  code: string;
  /** the exit code the block must end with */
  exit: number;
  /** the output (stdout and stderr together) must match each */
  expects: RegExp[];
  /** why it is not run, when `<!-- not run: ... -->` precedes it */
  notRun?: string;
}

const NOT_RUN = /^<!--\s*not run:\s*(.+?)\s*-->$/;
const EXPECT = /^<!--\s*expect:\s*(.+?)\s*-->$/;

export function shellBlocks(markdown: string): DocBlock[] {
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    let end = i + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
    if (end >= lines.length) throw new Error(`line ${i + 1}: a code block is never closed`);
    if (open[1] === 'sh') {
      const code = lines.slice(i + 1, end);
      let before = i - 1;
      while (before >= 0 && lines[before]!.trim() === '') before--;
      const notRun = before >= 0 ? NOT_RUN.exec(lines[before]!.trim())?.[1] : undefined;
      const expects: RegExp[] = [];
      for (let j = end + 1; j < lines.length; j++) {
        const m = EXPECT.exec(lines[j]!.trim());
        if (!m) break;
        try {
          expects.push(new RegExp(m[1]!, 'm'));
        } catch (e) {
          throw new Error(`line ${j + 1}: the expect is not a regular expression: ${(e as Error).message}`);
        }
      }
      const last = [...code].reverse().find((l) => l.trim() !== '' && !l.trim().startsWith('#')) ?? '';
      const exit = Number(/#\s*exit\s+(\d+)\s*$/.exec(last)?.[1] ?? 0);
      blocks.push({ line: i + 1, code: code.join('\n'), exit, expects, ...(notRun ? { notRun } : {}) });
    }
    i = end;
  }
  return blocks;
}

/**
 * The bash script that runs one block: `set -e -o pipefail`, output merged (2>&1), the variables
 * of earlier blocks read from `varsFile`, and every variable the block sets written back to it.
 */
export function blockScript(code: string, varsFile: string): string {
  const q = `'${varsFile.replaceAll("'", `'\\''`)}'`;
  return [
    'exec 2>&1',
    '__BASE=" $(compgen -v | tr "\\n" " ") "',
    '__save() { for __v in $(compgen -v); do case "$__BASE" in *" $__v "*) continue;; esac; case "$__v" in __*|BASH*|FUNCNAME|PIPESTATUS|_) continue;; esac; declare -p "$__v"; done > ' +
      q +
      '; }',
    `[ -f ${q} ] && source ${q}`,
    "trap '__save' EXIT",
    'set -e -o pipefail',
    code,
    '',
  ].join('\n');
}
