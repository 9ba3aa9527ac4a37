// How a batch looks (issue 30: the batch's lines go through src/output like every other output):
// one result line per row on stdout as rows finish (fixed columns for people, one JSON object per
// line with --json), gathered into large writes; the progress line on a terminal's stderr, cleared
// before any other line; the summary lines. Text the API sent (a refusal's message) is escaped.
import type { BatchCounts, BatchSummary, RowResult } from '../client/batch.js';
import type { Io, OutStream } from '../io.js';
import { terminalSafe, terminalSafeLine } from '../terminal-text.js';

export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** One line per row for people: fixed columns, so lines print as rows finish. */
export function rowLine(r: RowResult, rowWidth: number): string {
  const cells = [
    String(r.row).padEnd(rowWidth),
    r.status.padEnd(7),
    (r.http_status === null ? '-' : String(r.http_status)).padEnd(4),
    terminalSafeLine(r.id ?? '-').padEnd(26),
    (r.balance_minor === null ? '-' : String(r.balance_minor)).padEnd(13),
  ];
  let detail = '';
  // a refused row says what to do, as the single command does (for kyc_not_approved: by the customer's state)
  if (r.error)
    detail =
      r.status === 'unknown'
        ? [`${r.error.message} (key ${r.idempotency_key})`, r.error.hint].filter(Boolean).join(' ')
        : [r.error.message, r.error.hint].filter(Boolean).join(' ');
  else if (r.from_journal) detail = 'from the journal: already done, not sent again';
  // the message and hint can quote what the API said: escaped like every text from outside
  return `${cells.join('  ')}  ${terminalSafeLine(detail)}`.trimEnd();
}

function headerLine(rowWidth: number): string {
  return ['ROW'.padEnd(rowWidth), 'STATUS ', 'HTTP', 'ID'.padEnd(26), 'BALANCE_MINOR', 'DETAIL'].join('  ');
}

/** The `--json` line of a row. */
export function rowJson(r: RowResult): Record<string, unknown> {
  return {
    row: r.row,
    idempotency_key: r.idempotency_key,
    status: r.status,
    http_status: r.http_status,
    id: r.id,
    balance_minor: r.balance_minor,
    error: r.error,
    from_journal: r.from_journal,
  };
}

function progressText(c: BatchCounts): string {
  const width = 20;
  const filled = c.total === 0 ? width : Math.round((c.done / c.total) * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${c.done}/${c.total}  ok ${c.ok}  refused ${c.refused}  unknown ${c.unknown}`;
}

export const rowsList = (rows: number[]): string =>
  rows.length > 10 ? `${rows.slice(0, 10).join(', ')}, ...` : rows.join(', ');

export function summaryLines(s: BatchSummary, keyPrefix: string, duplicates = 0): string[] {
  const lines = [`${plural(s.total, 'row')}: ${s.ok} ok, ${s.refused} refused, ${s.unknown} unknown.`];
  if (duplicates > 0)
    lines.push(
      `${plural(duplicates, 'row')} repeated an earlier row and ${duplicates === 1 ? 'was' : 'were'} sent anyway (--allow-duplicates): each is its own operation, with its own key.`,
    );
  if (s.stats.throttled > 0)
    lines.push(
      `Rate limited ${plural(s.stats.throttled, 'time')} (429): every row waited for the Retry-After; the requests were sent again with the same keys.`,
    );
  // a new prefix gives every row a new key: while an outcome is unknown, it could charge that row twice
  const unknown = s.unknown > 0;
  const notWhileUnknown =
    "Do not change --idempotency-prefix while any row's outcome is unknown: a new prefix gives every row a new key, and an unknown row that went through would be charged again; settle the unknown rows first.";
  if (s.fromJournal > 0) {
    lines.push(
      `${plural(s.fromJournal, 'row')} already done: answered from the journal, not sent again. ` +
        (unknown
          ? notWhileUnknown
          : `To send ${s.fromJournal === 1 ? 'it' : 'them'} again on purpose (next month's top-ups, say), run the command with a new --idempotency-prefix (keys are ${keyPrefix}-<row digest>-<n>: another prefix makes new keys).`),
    );
  }
  lines.push(...unknownLines(s));
  const byApi = s.refused - s.refusedUnsent;
  if (byApi > 0) {
    lines.push(
      `Refused ${byApi === 1 ? 'row' : 'rows'} ${rowsList(s.refusedSentRows)}: not charged (each refused row's line says what to do). Running the same command again resends those refused as temporary ` +
        '(kyc_not_approved, 503, 429); other refusals are remembered under their keys: an edited row has a new key already' +
        (unknown
          ? `. ${notWhileUnknown}`
          : ', and to send a row again unchanged (after a deposit, say) use a new --idempotency-prefix.'),
    );
  }
  lines.push(...unsentLines(s));
  if (s.stoppedBy)
    lines.push(
      `Stopped at row ${s.stoppedBy.row}: ${s.stoppedBy.message.replace(/; nothing was sent\.$/, '')}. The ${plural(s.stoppedBy.notSent, 'row')} after it ${s.stoppedBy.notSent === 1 ? 'was' : 'were'} not sent. Once the journal can be written, run the same command again: the rows done are answered from the journal, the others sent once.`,
    );
  return lines;
}

/**
 * Unknown rows: those a rerun replays (the same keys, within the API's 24 h), and those whose key
 * was first sent over 23 h ago, which no rerun can settle: look at the card, then `ops resolve`.
 */
function unknownLines(s: BatchSummary): string[] {
  const lines: string[] = [];
  const replayable = s.unknown - s.unknownPastLimit;
  if (replayable > 0) {
    const which =
      s.unknownPastLimit === 0
        ? `${s.unknown === 1 ? 'row' : 'rows'} ${rowsList(s.unknownRows)}`
        : plural(replayable, 'row');
    lines.push(
      `The outcome of ${which} is not known yet: run the same command again. ` +
        "Each row's idempotency key comes from what the row asks, not from the file: it replays the row instead of charging twice (also after other rows were added, removed or reordered), and the rows that went through answer the same result.",
    );
  }
  if (s.unknownPastLimit > 0) {
    const rows = `${s.unknownPastLimit === 1 ? 'row' : 'rows'} ${rowsList(s.unknownPastLimitRows)}`;
    lines.push(
      `The outcome of ${rows} is unknown and ${s.unknownPastLimit === 1 ? 'its key was' : 'their keys were'} first sent over 23 h ago: the API has forgotten ${s.unknownPastLimit === 1 ? 'it' : 'them'}, so no rerun can tell (sent again, a key would be a new charge). ` +
        "Look at the card (each row's line names the `cardctl cards get` to run), then record what you saw: `cardctl ops resolve ID --outcome succeeded|failed`; the same command then answers from the journal.",
    );
  }
  return lines;
}

/** The rows refused here, never sent: those whose key another process held (key_in_use), those the API could not be reached for, and those the journal refused. */
function unsentLines(s: BatchSummary): string[] {
  const lines: string[] = [];
  if (s.keyInUse > 0) {
    lines.push(
      `Refused here, never sent: ${plural(s.keyInUse, 'row')} whose idempotency key another cardctl process holds right now (key_in_use: it is sending the same row, e.g. the same file run in two shells; each line names its pid). ` +
        'Let it finish, then run the same command again: those rows are answered from the journal if it sent them, and sent once otherwise.',
    );
  }
  if (s.unreachable > 0) {
    const which =
      s.unreachable === s.refusedUnsent
        ? `${s.unreachable === 1 ? 'row' : 'rows'} ${rowsList(s.refusedUnsentRows)}`
        : plural(s.unreachable, 'row');
    lines.push(
      `Never sent: ${which}: the API could not be reached (each line says why), so nothing was charged for ${s.unreachable === 1 ? 'it' : 'them'}. ` +
        'Once it is reachable, run the same command again: those rows are sent once, and the rows that went through come from the journal.',
    );
  }
  const journalRows = s.refusedUnsent - s.keyInUse - s.unreachable;
  if (journalRows > 0) {
    const which =
      s.keyInUse + s.unreachable === 0
        ? `${journalRows === 1 ? 'row' : 'rows'} ${rowsList(s.refusedUnsentRows)}`
        : plural(journalRows, 'other row');
    lines.push(
      `Refused here, never sent: ${which} (each line says why: a journal that could not be written or read). ` +
        'Set that right, then run the same command again: those rows are sent once, and the rows that went through come from the journal.',
    );
  }
  return lines;
}

/** The progress line on a terminal: redrawn at most every 100 ms, cleared before any other line. */
function progressLine(
  err: OutStream,
  tty: boolean,
): { set: (text: string) => void; clear: () => void; draw: (force?: boolean) => void } {
  let progress = '';
  let lastDraw = 0;
  return {
    set: (text) => void (progress = text),
    clear: () => {
      if (tty && progress) err.write('\r\x1b[K');
    },
    draw: (force = false) => {
      if (!tty || !progress) return;
      const t = Date.now();
      if (!force && t - lastDraw < 100) return;
      lastDraw = t;
      err.write(`\r\x1b[K${progress}`);
    },
  };
}

/** Writes to stderr between result lines: the result lines so far first, the progress line cleared and redrawn. */
function aside(bar: ReturnType<typeof progressLine>, stdout: { flush: () => void }, write: () => void): void {
  stdout.flush();
  bar.clear();
  write();
  bar.draw(true);
}

/**
 * Result lines gathered into writes of up to 64 KiB (a rerun answers thousands of rows a second
 * from the journal), flushed at least every 100 ms and before anything goes to stderr.
 */
function bufferedWriter(out: OutStream): {
  write: (text: string) => void;
  flush: () => void;
  room: () => Promise<void> | undefined;
} {
  let pending = '';
  let timer: NodeJS.Timeout | undefined;
  let behind: Promise<void> | undefined;
  /** until the reader has taken what the stream holds (or the stream is gone: a closed stdout drops what is written) */
  const waitForReader = (): Promise<void> =>
    new Promise((resolve) => {
      const done = (): void => {
        for (const event of ['drain', 'close', 'error'] as const) out.off(event, done);
        behind = undefined;
        resolve();
      };
      for (const event of ['drain', 'close', 'error'] as const) out.on(event, done);
    });
  const flush = (): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (pending !== '' && !out.write(pending) && !behind && !out.destroyed) behind = waitForReader();
    pending = '';
  };
  return {
    write: (text) => {
      pending += text;
      if (pending.length >= 65536) flush();
      else timer ??= setTimeout(flush, 100);
    },
    flush,
    room: () => behind,
  };
}

/**
 * Everything a batch prints while its rows go (the batch glue drives it; this writes): the header,
 * each row's line as it finishes (gathered into large writes), stderr lines between them (the
 * progress line cleared first and redrawn after), the progress line on a terminal, the lines
 * owed to stdout when interrupted, and the summary.
 */
export function batchOutput(io: Io, opts: { json: boolean; verbose: boolean; total: number }) {
  // a progress line between verbose lines would only be noise
  const tty = Boolean(io.stderr.isTTY) && !opts.verbose;
  const rowWidth = Math.max(3, String(opts.total).length);
  const bar = progressLine(io.stderr, tty);
  const stdout = bufferedWriter(io.stdout);
  const line = (r: RowResult): string => (opts.json ? JSON.stringify(rowJson(r)) : rowLine(r, rowWidth)) + '\n';
  /** a write to stderr between result lines */
  const between = (write: () => void): void => aside(bar, stdout, write);
  return {
    /** the header of the people's table (none with --json: every line is a row) */
    start: (): void => {
      if (!opts.json) io.stdout.write(headerLine(rowWidth) + '\n');
    },
    result: (r: RowResult): void => {
      if (tty) between(() => io.stdout.write(line(r)));
      else stdout.write(line(r));
    },
    /** a line on stderr while rows go (escaped: it may quote the API) */
    note: (text: string): void => between(() => io.stderr.write(terminalSafe(text) + '\n')),
    between,
    progress: (c: BatchCounts): void => {
      if (!tty) return; // no progress line to draw: nothing to format (a rerun reports thousands of rows a second)
      bar.set(progressText(c));
      bar.draw(c.done === c.total);
    },
    /** until stdout's reader took what it holds (undefined: no wait), so a slow reader slows the rows, not the memory */
    room: stdout.room,
    /** interrupted: what is owed to stdout (finished rows held back behind a slower one), after what was already written */
    interrupted: (results: readonly RowResult[]): string => {
      bar.clear();
      stdout.flush();
      return results.map(line).join('');
    },
    /** the rows that finished, written also when something failed */
    flush: (): void => stdout.flush(),
    end: (summary: readonly string[]): void => {
      bar.clear();
      for (const l of summary) io.stderr.write(l + '\n');
    },
  };
}
