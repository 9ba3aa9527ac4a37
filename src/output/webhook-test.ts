// `cardctl webhooks test` for people: which receiver, with which secret (named, never shown)
// and timeout, then the cases (src/output/case-report.ts).
import type { ChalkInstance } from 'chalk';
import { formatCaseList, type ReportCase } from './case-report.js';

export interface WebhookTestView {
  suite: string;
  url: string;
  secret_from: string;
  timeout_s: number;
  time_ms: number;
  cases: ReportCase[];
}

export function formatWebhookTest(report: WebhookTestView, chalk: ChalkInstance): string {
  const head =
    chalk.dim(
      `grading ${report.url}: deliveries signed with the webhook secret from ${report.secret_from}, ${report.timeout_s} s to answer each`,
    ) + '\n';
  return head + formatCaseList(report, chalk);
}
