// Reports made of test cases (`cardctl smoke`, `cardctl webhooks test`): a readable list for
// people, JUnit XML for CI servers (GitHub Actions, GitLab, Jenkins), and GitHub Actions
// `::error::` annotations. Each renderer takes the report as data; nothing here sends anything.
import type { ChalkInstance } from 'chalk';
import { terminalSafe } from '../terminal-text.js';

export type CaseStatus = 'passed' | 'failed' | 'info' | 'skipped';

export interface ReportCase {
  name: string;
  /** a group of cases (smoke: setup, signing, ...; webhooks test: accept, refuse, info) */
  group?: string;
  status: CaseStatus;
  expected: string;
  got: string;
  time_ms: number;
  /** for a failure: the exchange or other evidence, already redacted (multi-line) */
  details?: string;
}

export interface CaseSuite {
  /** e.g. "cardctl smoke" */
  suite: string;
  time_ms: number;
  cases: ReportCase[];
}

// ---- people ----

/** One line per case (`✓ name  12 ms`), and under a failure: expected, got, and the details. */
export function formatCaseList(report: CaseSuite, chalk: ChalkInstance): string {
  // a server's bytes reach these fields: escaped for the terminal (JUnit and JSON keep them exact)
  const one = (s: string): string => terminalSafe(s).replaceAll('\n', '\\n');
  const mark: Record<CaseStatus, string> = {
    passed: chalk.green('✓'),
    failed: chalk.red('✗'),
    info: chalk.cyan('i'),
    skipped: chalk.dim('-'),
  };
  const width = Math.max(0, ...report.cases.map((c) => label(c).length));
  const lines: string[] = [];
  for (const c of report.cases) {
    lines.push(
      `${mark[c.status]} ${label(c).padEnd(width)}  ${String(c.time_ms).padStart(5)} ms  ${c.status === 'passed' ? one(c.got) : ''}`.trimEnd(),
    );
    if (c.status === 'failed' || c.status === 'info' || c.status === 'skipped') {
      const pad = ' '.repeat(4);
      lines.push(`${pad}expected: ${one(c.expected)}`, `${pad}got:      ${one(c.got)}`);
      if (c.details && c.status === 'failed')
        for (const d of c.details.split('\n')) lines.push(chalk.dim(`${pad}${terminalSafe(d)}`));
    }
  }
  const n = (s: CaseStatus): number => report.cases.filter((c) => c.status === s).length;
  const failed = n('failed');
  const summary = `${report.cases.length} cases: ${n('passed')} passed, ${failed} failed${n('info') ? `, ${n('info')} info` : ''}${n('skipped') ? `, ${n('skipped')} skipped` : ''} (${(report.time_ms / 1000).toFixed(1)} s)`;
  lines.push('', failed ? chalk.red.bold(`✗ ${summary}`) : chalk.green.bold(`✓ ${summary}`));
  return lines.join('\n') + '\n';
}

const label = (c: ReportCase): string => (c.group ? `${c.group}: ${c.name}` : c.name);

// ---- JUnit XML ----

/** Characters XML 1.0 cannot hold even escaped (controls, lone surrogates) are written as \uXXXX text. */
function xmlChars(text: string): string {
  return text.replace(
    /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

export function xmlText(text: string): string {
  return xmlChars(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** An attribute value: quotes escaped, and tabs and line breaks as references (parsers would turn them into spaces). */
export function xmlAttr(text: string): string {
  return xmlText(text)
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\t/g, '&#9;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;');
}

const seconds = (ms: number): string => (ms / 1000).toFixed(3);

/**
 * JUnit XML as GitHub Actions (test reporters), GitLab (`artifacts:reports:junit`) and Jenkins
 * (`junit` step) read it: one testsuite, one testcase per case with its time in seconds, a
 * failure element (message attribute, details as text) per failed case, `skipped` for skipped
 * ones; an info case passes and carries its finding in system-out.
 */
export function formatJunit(report: CaseSuite, timestamp = new Date()): string {
  const failures = report.cases.filter((c) => c.status === 'failed').length;
  const skipped = report.cases.filter((c) => c.status === 'skipped').length;
  const classBase = report.suite.replace(/\s+/g, '.');
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const counts = `tests="${report.cases.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${seconds(report.time_ms)}"`;
  out.push(`<testsuites name="${xmlAttr(report.suite)}" ${counts}>`);
  out.push(
    `  <testsuite name="${xmlAttr(report.suite)}" ${counts} timestamp="${timestamp.toISOString().replace(/\.\d{3}Z$/, '')}">`,
  );
  for (const c of report.cases) {
    const head = `    <testcase classname="${xmlAttr(c.group ? `${classBase}.${c.group}` : classBase)}" name="${xmlAttr(c.name)}" time="${seconds(c.time_ms)}"`;
    if (c.status === 'passed') {
      out.push(`${head}/>`);
      continue;
    }
    out.push(`${head}>`);
    if (c.status === 'failed') {
      const text = [`expected: ${c.expected}`, `got: ${c.got}`, ...(c.details ? ['', c.details] : [])].join('\n');
      out.push(
        `      <failure message="${xmlAttr(`expected ${c.expected}, got ${c.got}`)}" type="failure">${xmlText(text)}</failure>`,
      );
    } else if (c.status === 'skipped') {
      out.push(`      <skipped message="${xmlAttr(c.got)}"/>`);
    } else {
      out.push(`      <system-out>${xmlText(`${c.expected}; got ${c.got}`)}</system-out>`);
    }
    out.push('    </testcase>');
  }
  out.push('  </testsuite>', '</testsuites>');
  return out.join('\n') + '\n';
}

// ---- GitHub Actions annotations ----

/** Workflow command data: `%`, CR and LF escaped (docs: "Workflow commands", escaping). */
export function escapeCommandData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Workflow command property values: also `:` and `,`. */
export function escapeCommandProperty(text: string): string {
  return escapeCommandData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** One `::error title=...::message` line per failed case. */
export function githubAnnotations(report: CaseSuite): string {
  return report.cases
    .filter((c) => c.status === 'failed')
    .map(
      (c) =>
        `::error title=${escapeCommandProperty(`${report.suite}: ${label(c)}`)}::${escapeCommandData(`${label(c)}: expected ${c.expected}, got ${c.got}${c.details ? `\n${c.details}` : ''}`)}\n`,
    )
    .join('');
}

/**
 * The job summary of GitHub Actions (appended to the file $GITHUB_STEP_SUMMARY names): a heading
 * with the counts, and a table of the cases, failures first, with what was expected and what came
 * back. Markdown: a cell's `|`, backslash, `<`, `>` and `&` are escaped and its lines joined, so a
 * server's text cannot break the table or inject HTML.
 */
export function githubStepSummary(report: CaseSuite): string {
  const cell = (s: string): string =>
    s
      .replaceAll('&', '&amp;')
      .replaceAll('<', '&lt;')
      .replaceAll('>', '&gt;')
      .replaceAll('\\', '\\\\')
      .replaceAll('|', '\\|')
      .replace(/\r?\n/g, ' ')
      .replace(/[\u0000-\u001f\u007f]/g, ' ');
  const n = (s: CaseStatus): number => report.cases.filter((c) => c.status === s).length;
  const failed = n('failed');
  const icon: Record<CaseStatus, string> = {
    passed: '✅ passed',
    failed: '❌ failed',
    info: 'ℹ️ info',
    skipped: '⏭️ skipped',
  };
  const order: CaseStatus[] = ['failed', 'info', 'skipped', 'passed'];
  const rows = order.flatMap((status) =>
    report.cases
      .filter((c) => c.status === status)
      .map((c) => `| ${cell(label(c))} | ${icon[c.status]} | ${cell(c.expected)} | ${cell(c.got)} | ${c.time_ms} |`),
  );
  return (
    [
      `### ${failed ? '❌' : '✅'} ${cell(report.suite)}: ${report.cases.length} cases, ${n('passed')} passed, ${failed} failed (${(report.time_ms / 1000).toFixed(1)} s)`,
      '',
      '| case | result | expected | got | ms |',
      '|---|---|---|---|---:|',
      ...rows,
      '',
    ].join('\n') + '\n'
  );
}
