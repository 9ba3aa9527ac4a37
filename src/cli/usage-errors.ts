// oclif's parse errors, said the way cardctl says things: what is wrong in words, the closest
// flag for a mistyped one, and the command's usage lines (src/cli/usage.ts) as the hint. No
// oclif import (errors are recognised by their message). Nothing typed is repeated but flag
// names (a value, or a stray argument, could be a pasted secret).
import { readFileSync } from 'node:fs';
import { CardctlError } from '../errors.js';
import { redactParseMessage } from '../output/error.js';
import { closest } from './suggest.js';
import { usageLines, valueName, type ManifestCommand } from './usage.js';

/** The command's entry in oclif.manifest.json (read only on this error path). */
export function manifestCommand(
  id: string | undefined,
  manifestUrl = new URL('../../oclif.manifest.json', import.meta.url),
): ManifestCommand | undefined {
  if (!id) return undefined;
  try {
    return (JSON.parse(readFileSync(manifestUrl, 'utf8')) as { commands: Record<string, ManifestCommand> }).commands[
      id
    ];
  } catch {
    return undefined;
  }
}

function flagWord(c: ManifestCommand | undefined, name: string): string {
  const f = c?.flags[name];
  return f && f.type === 'option' ? `--${name} ${valueName(f)}` : `--${name}`;
}

function usageHint(c: ManifestCommand | undefined, id: string | undefined): string {
  const words = id ? `cardctl ${id.replaceAll(':', ' ')}` : 'cardctl';
  if (!c) return `See \`${words} --help\`.`;
  const lines = usageLines(c).map((l) => `  cardctl ${l}`);
  return `Usage:\n${lines.join('\n')}\nSee \`${words} --help\` for every flag.`;
}

/** The closest flag of the command to a mistyped `--name` (or none). */
export function closestFlag(typed: string, c: ManifestCommand | undefined): string | undefined {
  if (!c) return undefined;
  const name = typed.replace(/^-+/, '').split('=')[0]!;
  return closest(
    name,
    Object.values(c.flags)
      .filter((f) => !f.hidden)
      .map((f) => f.name),
  );
}

/**
 * A CardctlError (usage, exit 2) for an oclif parse error; undefined when the message is not one
 * of oclif's parse errors.
 */
export function explainParseError(
  message: string,
  id: string | undefined,
  c: ManifestCommand | undefined = manifestCommand(id),
): CardctlError | undefined {
  const hint = usageHint(c, id);
  const usage = (text: string, code: string, extra?: string): CardctlError =>
    new CardctlError(text, { kind: 'usage', code, hint: extra ? `${extra}\n${hint}` : hint });

  const missingArgs = /^Missing \d+ required args?:\n([\s\S]*?)(?:\nSee more help|$)/.exec(message);
  if (missingArgs) {
    const names = missingArgs[1]!
      .split('\n')
      .map((l) => l.trim().split(/\s+/)[0]!)
      .filter(Boolean);
    const described = names.map((n) => {
      const d = c?.args?.[n] && (c.args[n] as { description?: string }).description;
      return d ? `${n.toUpperCase()} (${d})` : n.toUpperCase();
    });
    return usage(`missing ${described.join(' and ')}.`, 'missing_argument');
  }

  const nonexistent = /^Nonexistent flags?: (.*)$/m.exec(message);
  if (nonexistent) {
    const typed = nonexistent[1]!.split(', ').map((f) => f.split('=')[0]!);
    // a name shaped like a flag name is shown; anything else could be a value pasted there
    const flagLike = (f: string): boolean => /^--?[a-z][a-z0-9-]{0,29}$/.test(f);
    const hidden = typed.filter((f) => !flagLike(f)).length;
    const shown = typed.filter(flagLike);
    const what = [
      ...(shown.length ? [`unknown flag${shown.length === 1 ? '' : 's'} ${shown.join(', ')}`] : []),
      ...(hidden
        ? [
            `${shown.length ? '' : 'an '}unknown flag${hidden === 1 ? '' : `s (${hidden})`} not shown (it could be a value)`,
          ]
        : []),
    ].join(' and ');
    const suggestions = typed.map((t) => closestFlag(t, c)).filter((s): s is string => Boolean(s));
    const didYouMean = suggestions.length
      ? `Did you mean ${suggestions.map((s) => `\`${flagWord(c, s)}\``).join(', ')}?`
      : undefined;
    return usage(`${what}${id ? ` for \`cardctl ${id.replaceAll(':', ' ')}\`` : ''}.`, 'unknown_flag', didYouMean);
  }

  const failed = /^The following errors? occurred:\s*\n([\s\S]*?)(?:\nSee more help|$)/.exec(message);
  if (failed) {
    const lines = failed[1]!
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    const missing = lines
      .map((l) => /^Missing required flag:? ?(\S+)$/.exec(l)?.[1])
      .filter((x): x is string => Boolean(x));
    if (missing.length === lines.length)
      return usage(`missing ${missing.map((m) => flagWord(c, m)).join(' and ')} (required).`, 'missing_flag');
    const conflicts = lines
      .map((l) => /^--([\w-]+)=.* cannot also be provided when using --([\w-]+)$/.exec(l))
      .filter((x): x is RegExpExecArray => Boolean(x));
    if (conflicts.length === lines.length) {
      const other = conflicts[0]![2]!;
      const given = [...new Set(conflicts.map((m) => `--${m[1]}`))].join(', ');
      return usage(
        `${given} cannot be used with --${other}: they are the two ways to run this command, pick one.`,
        'conflicting_flags',
      );
    }
    return usage(lines.map((l) => redactParseMessage(l)).join('; ') + '.', 'invalid_flags');
  }

  const option = /^Expected --([\w-]+)=(.*) to be one of: (.*)$/m.exec(message);
  if (option) {
    const options = option[3]!.split(', ');
    const near = closest(option[2]!, options);
    return usage(
      `--${option[1]} must be one of: ${options.join(', ')}.`,
      'invalid_value',
      near ? `Did you mean \`--${option[1]} ${near}\`?` : undefined,
    );
  }

  const parsing = /^Parsing --([\w-]+)\s*\n\s*(.*)/.exec(message);
  if (parsing) {
    const name = parsing[1]!;
    const inner = parsing[2]!.trim();
    const f = c?.flags[name] as { min?: number; max?: number } | undefined;
    const range =
      f?.min !== undefined && f?.max !== undefined
        ? ` from ${f.min} to ${f.max}`
        : f?.min !== undefined
          ? ` of at least ${f.min}`
          : f?.max !== undefined
            ? ` of at most ${f.max}`
            : '';
    if (/^Expected an integer/.test(inner)) {
      const minor = /amount/.test(name) ? minorUnitsExample(name, inner, usage) : undefined;
      return minor ?? usage(`--${name} expects a whole number${range}.`, 'invalid_value');
    }
    return usage(`--${name}: ${inner.replace(/\.$/, '')}.`, 'invalid_value');
  }

  if (/^Unexpected arguments?: /m.test(message))
    return usage(`${redactParseMessage(message.split('\n')[0]!)}.`, 'unexpected_argument');
  return undefined;
}

/**
 * `--amount 50.00`: amounts are whole minor units, so say so with the value it meant (the API's
 * currency, USD, has 2 decimals: 50.00 is 5000). Only for a decimal number; anything else keeps
 * the plain "expects a whole number".
 */
function minorUnitsExample(
  name: string,
  inner: string,
  usage: (text: string, code: string, extra?: string) => CardctlError,
): CardctlError | undefined {
  const given = /received:\s*(\S+)/.exec(inner)?.[1];
  const m = given !== undefined ? /^(\d+)[.,](\d{1,2})$/.exec(given) : null;
  if (!m) return undefined;
  const minor = Number(m[1]) * 100 + Number(m[2]!.padEnd(2, '0'));
  return usage(
    `--${name} takes whole minor units (cents): ${given} is --${name} ${minor}.`,
    'invalid_value',
    `Amounts are integers in minor units, as the API has them: --${name} ${minor} means ${m[1]}.${m[2]!.padEnd(2, '0')} USD.`,
  );
}
