// An API answer as `cardctl request` prints it: optionally the status line and headers first
// (like `curl -i` / `gh api -i`), then the body, pretty-printed when it is JSON. A server's
// control characters are escaped (issue 22 item 5); in JSON as \u escapes, so it is the same JSON.
import { terminalSafe, terminalSafeJson, terminalSafeLine } from '../terminal-text.js';
import { outcome, result, type Result } from './render.js';

export interface PrintableResponse {
  status: number;
  statusText: string;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: unknown;
}

export function formatResponse(res: PrintableResponse, include: boolean): string {
  let out = '';
  if (include) {
    out += `HTTP/1.1 ${res.status} ${res.statusText}\n`;
    for (const [k, v] of Object.entries(res.headers)) {
      if (v === undefined) continue;
      for (const one of Array.isArray(v) ? v : [v]) out += `${terminalSafeLine(k)}: ${terminalSafeLine(String(one))}\n`;
    }
    out += '\n';
  }
  if (res.body !== undefined) out += terminalSafeJson(JSON.stringify(res.body, null, 2)) + '\n';
  else if (res.text !== '') out += terminalSafe(res.text.endsWith('\n') ? res.text : `${res.text}\n`);
  return out;
}

/**
 * An answer as a command's result (`request`, `ops replay`): its body is the --json document, the
 * text as above. `failure`: the API refused it; text shows the answer, then the error (like `gh
 * api`), --json the error alone.
 */
export function responseResult(res: PrintableResponse, include: boolean, failure?: unknown): Result {
  const r = result(res.body ?? res.text, () => formatResponse(res, include));
  return failure === undefined ? r : outcome(r, { failure });
}
