// `cardctl smoke` for people: the cases (src/output/case-report.ts), then what the run created,
// so a CI log names the customer and the card it left behind.
import type { ChalkInstance } from 'chalk';
import { formatCaseList, type ReportCase } from './case-report.js';

export interface SmokeView {
  suite: string;
  time_ms: number;
  cases: ReportCase[];
  profile: { name: string; mode: string; key_id: string; base_url: string } | null;
  created: { customer_id: string | null; card_id: string | null; card_status: string | null };
  requests: number;
  max_requests: number;
}

export function formatSmoke(report: SmokeView, chalk: ChalkInstance): string {
  const p = report.profile;
  const head =
    chalk.dim(
      p
        ? `smoke test of ${p.base_url} with ${p.mode} key ${p.key_id} (profile ${p.name})`
        : 'smoke test: no credentials',
    ) + '\n';
  const c = report.created;
  const made = [
    c.customer_id ? `customer ${c.customer_id}` : '',
    c.card_id ? `card ${c.card_id}${c.card_status ? ` (${c.card_status})` : ''}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const tail = `created: ${made || 'nothing'}; ${report.requests} of at most ${report.max_requests} requests\n`;
  return head + formatCaseList(report, chalk) + tail;
}
