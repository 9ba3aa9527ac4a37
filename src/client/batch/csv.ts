// RFC 4180 CSV read as a stream: quoted fields (with `""` and line breaks inside), CRLF or LF,
// blank lines skipped. Cells are kept as written (spaces included): what a cell means is the
// planner's to decide (an amount follows the rules of --amount, where " 5" is not a number).

export interface CsvRecord {
  /** the line where the record starts */
  line: number;
  cells: string[];
  error?: string;
}

/** A record longer than this (an unclosed quote swallowing the file, say) stops the reading. */
export const MAX_RECORD_CHARS = 1 << 20;

export class CsvParser {
  private cells: string[] = [];
  private cell = '';
  private size = 0;
  private quoted = false;
  private quotePending = false;
  private crPending = false;
  private line = 1;
  private start = 1;
  /** set when a record grew past MAX_RECORD_CHARS: nothing more is read */
  tooLong?: number;

  /** The records completed by this chunk of text. */
  push(text: string): CsvRecord[] {
    const out: CsvRecord[] = [];
    for (let i = 0; i < text.length && this.tooLong === undefined; ) {
      const next = this.atRecordStart() ? this.plainLine(text, i, out) : i;
      if (next > i) i = next;
      else this.char(text[i++]!, out);
    }
    return out;
  }

  /** Between records: nothing of a record read yet, nothing pending. */
  private atRecordStart(): boolean {
    return this.size === 0 && !this.quoted && !this.quotePending && !this.crPending && this.cells.length === 0;
  }

  /**
   * A whole line at `i` ending in LF with no quote and no CR (what nearly every line is): its cells
   * split at the commas, as the character-by-character reading would find them. Returns where the
   * next line starts, or `i` when the line is not such a one (then it is read a character at a time).
   */
  private plainLine(text: string, i: number, out: CsvRecord[]): number {
    const nl = text.indexOf('\n', i);
    if (nl < 0 || nl - i + 1 > MAX_RECORD_CHARS) return i;
    const line = text.slice(i, nl);
    if (line.includes('"') || line.includes('\r')) return i;
    const cells = line.split(',');
    this.cell = cells.pop()!; // the last cell, as finish() takes it
    this.cells = cells;
    this.finish(out);
    this.line++;
    this.start = this.line;
    return nl + 1;
  }

  /** The last record (the text ended). */
  end(): CsvRecord[] {
    const out: CsvRecord[] = [];
    if (this.tooLong !== undefined) return out;
    if (this.quotePending) this.quoted = this.quotePending = false;
    if (this.quoted) {
      this.finish(out, 'a quoted field is not closed before the end of the file.');
      return out;
    }
    if (this.cells.length > 0 || this.cell !== '') this.finish(out);
    return out;
  }

  private char(ch: string, out: CsvRecord[]): void {
    if (++this.size > MAX_RECORD_CHARS) {
      this.tooLong = this.start;
      return;
    }
    if (this.crPending) {
      this.crPending = false;
      if (ch === '\n') return;
    }
    if (this.quotePending) {
      this.quotePending = false;
      if (ch === '"') {
        this.cell += '"';
        return;
      }
      this.quoted = false;
    }
    if (this.quoted) {
      if (ch === '"') this.quotePending = true;
      else {
        if (ch === '\n') this.line++;
        this.cell += ch;
      }
      return;
    }
    if (ch === '"' && this.cell.trim() === '') {
      this.quoted = true;
      this.cell = '';
    } else if (ch === ',') {
      this.cells.push(this.cell);
      this.cell = '';
    } else if (ch === '\r' || ch === '\n') {
      this.finish(out);
      this.line++;
      this.start = this.line;
      this.crPending = ch === '\r';
    } else {
      this.cell += ch;
    }
  }

  private finish(out: CsvRecord[], error?: string): void {
    this.cells.push(this.cell);
    const cells = this.cells;
    this.cells = [];
    this.cell = '';
    this.size = 0;
    if (cells.length === 1 && cells[0]!.trim() === '' && !error) return; // a blank line
    out.push(error ? { line: this.start, cells, error } : { line: this.start, cells });
  }
}
