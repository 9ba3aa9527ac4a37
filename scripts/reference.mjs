// Generates docs/reference.md from oclif.manifest.json: every command with its usage lines
// (src/cli/usage.ts, as `--help` shows them), arguments, flags and examples. Run by
// `npm run reference` (and `npm run completions`) after changing a command;
// test/docs/reference.test.ts fails when the committed file is stale.
//   node scripts/reference.mjs [--stdout]
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { usageLines, valueName } = await import(new URL('../dist/cli/usage.js', import.meta.url).href);

export function reference(manifest, pjson) {
  const topics = pjson.oclif.topics ?? {};
  const commands = Object.values(manifest.commands)
    .filter((c) => !c.hidden)
    .sort((a, b) => a.id.localeCompare(b.id));
  const cell = (s) =>
    String(s ?? '')
      .replaceAll('|', '\\|')
      .replace(/\s*\n\s*/g, ' ');
  const out = [
    '# Command reference',
    '',
    '<!-- Generated from oclif.manifest.json by scripts/reference.mjs (`npm run reference`): do not edit by hand. -->',
    '',
    'Every command, as `cardctl COMMAND --help` shows it. In usage lines, what is required is written bare, what is',
    'optional is in brackets, and `[API FLAGS]` stands for the flags every API command takes:',
    '`-p, --profile NAME`, `-v, --verbose`, `--ca-file FILE`, `--retries N`, `--json` (and `--yes` where money',
    'moves; `[--json]` alone where that is the only one). `[--FIELD VALUE ...]` stands for the customer field flags',
    '(`--first-name`, `--email`, ..., listed in the table). A second usage line is the other way to run the command',
    '(a file of rows with `--batch`).',
    '',
  ];
  let topic = '';
  for (const c of commands) {
    const top = c.id.split(':')[0];
    if (top !== topic) {
      topic = top;
      out.push(`## ${top}`, '');
      if (topics[top]?.description) out.push(topics[top].description, '');
    }
    out.push(`### \`cardctl ${c.id.replaceAll(':', ' ')}\``, '');
    if (c.summary) out.push(c.summary, '');
    out.push('```text', ...usageLines(c).map((l) => `cardctl ${l}`), '```', '');
    if (c.description) out.push(c.description, '');
    const args = Object.values(c.args ?? {});
    const flags = Object.values(c.flags).filter((f) => !f.hidden);
    if (args.length || flags.length) {
      out.push('| argument or flag | description |', '|---|---|');
      for (const a of args)
        out.push(`| \`${a.name.toUpperCase()}\`${a.required ? ' (required)' : ''} | ${cell(a.description)} |`);
      for (const f of flags) {
        const name = `${f.char ? `-${f.char}, ` : ''}--${f.name}${f.type === 'option' ? ` ${valueName(f)}` : ''}`;
        const extra = [
          f.required ? 'required' : '',
          f.default !== undefined && f.default !== false ? `default ${JSON.stringify(f.default)}` : '',
          f.options && f.options.length > 6 ? `one of ${f.options.join(', ')}` : '',
          f.multiple ? 'repeatable' : '',
        ]
          .filter(Boolean)
          .join('; ');
        out.push(`| \`${cell(name)}\` | ${cell(f.description)}${extra ? ` (${cell(extra)})` : ''} |`);
      }
      out.push('');
    }
    if (c.examples?.length) {
      out.push(
        '```text',
        ...c.examples.map(
          (e) => `$ ${String(typeof e === 'string' ? e : e.command).replaceAll('<%= config.bin %>', 'cardctl')}`,
        ),
        '```',
        '',
      );
    }
  }
  return out.join('\n').replace(/\n+$/, '\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const manifest = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8'));
  const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const text = reference(manifest, pjson);
  if (process.argv.includes('--stdout')) process.stdout.write(text);
  else writeFileSync(join(root, 'docs', 'reference.md'), text);
}
