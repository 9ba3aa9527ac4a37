// How `cardctl doctor` shows its report to people: one line per check with a mark, and the
// hint under a check that did not pass.
import type { DoctorReport } from '../client/doctor.js';
import { chalkFor, colorEnabled } from './color.js';
import { terminalSafe, terminalSafeLine } from '../terminal-text.js';

export async function formatDoctor(report: DoctorReport, stream: { isTTY?: boolean }): Promise<string> {
  const chalk = colorEnabled(stream) ? await chalkFor(stream) : undefined; // chalk only for colour
  const mark = chalk
    ? { ok: chalk.green('✓'), warn: chalk.yellow('!'), fail: chalk.red('✗'), skipped: chalk.dim('-') }
    : { ok: '✓', warn: '!', fail: '✗', skipped: '-' };
  const width = Math.max(...report.checks.map((c) => c.name.length));
  let out = '';
  for (const c of report.checks) {
    out += `${mark[c.status]} ${c.name.padEnd(width)}  ${terminalSafeLine(c.detail)}\n`; // details quote the server's messages
    if (c.hint && c.status !== 'ok') out += `  ${' '.repeat(width)}  ${terminalSafe(c.hint)}\n`;
  }
  return out;
}
