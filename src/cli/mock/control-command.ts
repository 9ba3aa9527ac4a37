// Shared shape of the `cardctl mock <control>` commands: find the mock, make one control call,
// print the data (`--json`: as JSON; otherwise a readable block). Lives outside src/commands
// because nothing may import commands.
import { Flags } from '../oclif.js';
import { BaseCommand } from '../base-command.js';
import type { Result } from '../../output/render.js';
import { terminalSafeLine } from '../../terminal-text.js';
import type { OutStream } from '../../io.js';

export abstract class MockControlCommand extends BaseCommand {
  static override baseFlags = {
    ...BaseCommand.baseFlags,
    'control-url': Flags.string({
      description: 'control URL of the mock (default: CARDCTL_MOCK_URL, then the newest mock `mock start` recorded)',
      helpGroup: 'MOCK',
    }),
    profile: Flags.string({
      char: 'p',
      description:
        'use the mock this profile points at (one saved by `mock start --save-profiles`: mock-test, mock-live)',
      helpGroup: 'MOCK',
    }),
  };

  // The token is never a flag (it would land in shell history): CARDCTL_MOCK_TOKEN or the record of `mock start`.
  protected async control(
    flags: { 'control-url'?: string; profile?: string; json?: boolean },
    method: string,
    path: string,
    body?: unknown,
  ): Promise<unknown> {
    const { resolveControl, callControl } = await import('./control-client.js');
    const target = await resolveControl(
      { controlUrl: flags['control-url'], profile: flags.profile },
      process.env,
      this.io.stderr,
    );
    return callControl(target, method, path, body);
  }

  /** The same call, with the answer's `meta` (a list's cursor, the request log's `dropped`). */
  protected async controlPage(
    flags: { 'control-url'?: string; profile?: string },
    method: string,
    path: string,
  ): Promise<{ data: unknown; meta: Record<string, unknown> }> {
    const { resolveControl, callControlPage } = await import('./control-client.js');
    return callControlPage(
      await resolveControl({ controlUrl: flags['control-url'], profile: flags.profile }, process.env, this.io.stderr),
      method,
      path,
    );
  }

  /** One object, as the command's result: with --json (and --jq) the object itself, else `key value` lines. */
  protected async render(data: unknown, notes?: readonly string[]): Promise<Result> {
    const { result } = await import('../../output/render.js');
    return result(data, (out) => readable(data, out), notes);
  }

  /**
   * A list (docs/output.md), as the command's result for the one list renderer (src/output/list.ts):
   * with --json (and --jq) the `{data, meta}` envelope every list prints, else a table.
   */
  protected async renderList(
    page: { data: unknown; meta: Record<string, unknown> },
    columns?: (row: Record<string, unknown>) => Record<string, unknown>,
  ): Promise<Result> {
    if (!Array.isArray(page.data)) return this.render(page.data);
    const { listResult } = await import('../../output/render.js');
    return listResult({
      kind: 'list',
      pages: [{ data: page.data, meta: page.meta }],
      format: this.jsonOutput ? 'json' : 'table',
      // `columns`: the text table's view of a row (the JSON keeps every field)
      table: (rows, stream) => readable(columns ? (rows as Record<string, unknown>[]).map(columns) : rows, stream),
    });
  }
}

const scalar = (v: unknown): string =>
  v === null || v === undefined ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v);

/** A table for a list of objects (columns: every key seen), key-value lines for an object. */
export async function readable(data: unknown, stream: OutStream): Promise<string> {
  if (Array.isArray(data)) {
    if (data.length === 0) return '(none)\n';
    if (!data.every((row) => row && typeof row === 'object' && !Array.isArray(row)))
      return data.map((v) => terminalSafeLine(scalar(v))).join('\n') + '\n';
    const rows = data as Array<Record<string, unknown>>;
    const keys = [...new Set(rows.flatMap((row) => Object.keys(row)))];
    const { formatTable } = await import('../../output/text.js');
    return formatTable(
      rows,
      keys.map((k) => ({ header: k.toUpperCase(), get: (row: Record<string, unknown>) => scalar(row[k]) })),
      stream,
    );
  }
  if (data && typeof data === 'object') {
    const entries = Object.entries(data);
    const width = Math.max(...entries.map(([k]) => k.length));
    // the mock's answers quote what clients sent (URLs, event data): escaped (src/terminal-text.ts)
    return (
      entries.map(([k, v]) => `${terminalSafeLine(k.padEnd(width))}  ${terminalSafeLine(scalar(v))}`).join('\n') + '\n'
    );
  }
  return terminalSafeLine(scalar(data)) + '\n';
}
