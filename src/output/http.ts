// An API answer as `cardctl request` prints it: optionally the status line and headers first
// (like `curl -i` / `gh api -i`), then the body, pretty-printed when it is JSON. A server's
// control characters are escaped (issue 22 item 5); in JSON as \u escapes, so it is the same JSON.
import { terminalSafe, terminalSafeJson, terminalSafeLine } from '../terminal-text.js';

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
