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
    for (let i = 0; i < text.length && this.tooLong === undefined; i++) this.char(text[i]!, out);
    return out;
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
