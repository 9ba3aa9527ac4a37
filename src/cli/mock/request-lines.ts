// How `cardctl mock requests` and `mock start --log` show a record of the mock's request log:
// one line per request, like a log tail, with the diagnosis of a refusal; and the whole record
// for `mock requests show`.
import { terminalSafe, terminalSafeLine } from '../../terminal-text.js';

interface RecordLike {
  id?: unknown;
  plane?: unknown;
  received_at?: unknown;
  method?: unknown;
  path?: unknown;
  query?: unknown;
  status?: unknown;
  outcome?: unknown;
  codes?: unknown;
  duration_ms?: unknown;
  diagnosis?: { id?: unknown; message?: unknown } | null;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v));

/** `01:02:03.456Z  req_12  GET /api/v1/cards?x=1  401 invalid_signature  query_not_sorted: ...` */
export function requestLine(record: unknown): string {
  const r = (record ?? {}) as RecordLike;
  const time = str(r.received_at).slice(11) || '-';
  const target = `${str(r.path)}${r.query ? `?${str(r.query)}` : ''}`;
  const status =
    r.outcome === 'dropped' ? `${str(r.status)} dropped` : r.outcome === 'abandoned' ? 'abandoned' : str(r.status);
  const codes = Array.isArray(r.codes) && r.codes.length ? ` ${r.codes.join(',')}` : '';
  const plane = r.plane === 'control' ? ' (control)' : '';
  const parts = [
    time,
    str(r.id),
    `${str(r.method)} ${target}${plane}`,
    `${status}${codes}`,
    `${typeof r.duration_ms === 'number' ? r.duration_ms.toFixed(1) : '-'} ms`,
  ];
  const d = r.diagnosis;
  if (d && typeof d === 'object') parts.push(`${str(d.id)}: ${str(d.message)}`);
  return terminalSafeLine(parts.join('  ')); // a path or a diagnosis quotes what the client sent
}

/** The whole record: key-value lines, the body and the diagnosis's details indented. */
export function requestBlock(record: unknown): string {
  const r = (record ?? {}) as Record<string, unknown>;
  const lines: string[] = [];
  const width = 16;
  const scalar = (v: unknown): string =>
    v === null || v === undefined ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  for (const [k, v] of Object.entries(r)) {
    if (k === 'diagnosis' || k === 'body') continue;
    lines.push(`${k.padEnd(width)}${scalar(v)}`);
  }
  const body = r.body as { bytes?: number; sha256?: string; text?: string | null; truncated?: boolean } | undefined;
  if (body) {
    lines.push(
      `${'body'.padEnd(width)}${body.bytes ?? 0} bytes, sha256 ${body.sha256 ?? '-'}${body.truncated ? ' (the first 16 KiB kept)' : ''}`,
    );
    if (body.text) lines.push(...body.text.split('\n').map((l) => `  ${l}`));
  }
  const d = r.diagnosis as { id?: string; message?: string; details?: Record<string, unknown> } | null | undefined;
  if (d) {
    lines.push(`${'diagnosis'.padEnd(width)}${d.id ?? '-'}`, `  ${d.message ?? ''}`);
    for (const [k, v] of Object.entries(d.details ?? {})) {
      if (k === 'canonical' && Array.isArray(v)) {
        lines.push(`  canonical string the mock built, one field a line (invisible characters made visible):`);
        lines.push(...v.map((f, i) => `    ${i + 1}  ${String(f) === '' ? '(empty)' : String(f)}`));
      } else if (k === 'mistakes' && Array.isArray(v)) {
        for (const m of v as Array<{ id: string; description: string; fix: string }>)
          lines.push(`  mistake ${m.id}: ${m.description}`, `    fix: ${m.fix}`);
      } else {
        lines.push(`  ${k}: ${scalar(v)}`);
      }
    }
  }
  // the body and every field are what a client sent, unauthenticated: escaped (src/terminal-text.ts)
  return terminalSafe(lines.join('\n')) + '\n';
}
