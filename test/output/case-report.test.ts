// The case-report renderers as a CI server reads them: the JUnit XML must parse (any text
// escaped), and GitHub annotations must survive the workflow-command escaping rules.
import { describe, expect, it } from 'vitest';
import {
  escapeCommandData,
  escapeCommandProperty,
  formatJunit,
  githubAnnotations,
  githubStepSummary,
  type CaseSuite,
} from '../../src/output/case-report.js';
import { all, parseXml } from '../helpers/junit.js';

const NASTY = `a <b> & "c" 'd' \u0001 \u0000 tab\there\nline2\r\n% 100%, x:y ]]> \ud800 end`;

const report: CaseSuite = {
  suite: 'cardctl smoke',
  time_ms: 1234,
  cases: [
    { name: 'credentials', group: 'setup', status: 'passed', expected: 'ok', got: 'ok', time_ms: 5 },
    {
      name: `bad ${NASTY}`,
      group: 'cards',
      status: 'failed',
      expected: `201 ${NASTY}`,
      got: '500',
      time_ms: 17,
      details: `> POST /api/v1/cards\n< 500 ${NASTY}`,
    },
    { name: 'dup', group: 'info', status: 'info', expected: 'x', got: 'y & z', time_ms: 2 },
    {
      name: 'later',
      group: 'funding',
      status: 'skipped',
      expected: '403',
      got: 'not run: an earlier case failed',
      time_ms: 0,
    },
  ],
};

describe('JUnit XML', () => {
  it('parses, with counts, times in seconds, and every text as it was (except characters XML cannot hold)', () => {
    const root = parseXml(formatJunit(report, new Date('2026-11-23T08:00:00.000Z')));
    expect(root.name).toBe('testsuites');
    const [suite] = all(root, 'testsuite');
    expect(suite!.attrs).toMatchObject({
      name: 'cardctl smoke',
      tests: '4',
      failures: '1',
      errors: '0',
      skipped: '1',
      time: '1.234',
      timestamp: '2026-11-23T08:00:00',
    });
    const cases = all(root, 'testcase');
    expect(cases.map((c) => c.attrs.time)).toEqual(['0.005', '0.017', '0.002', '0.000']);
    expect(cases[0]!.attrs.classname).toBe('cardctl.smoke.setup');
    const printable = (s: string): string =>
      s.replace('\u0001', '\\u0001').replace('\u0000', '\\u0000').replace('\ud800', '\\ud800');
    expect(cases[1]!.attrs.name).toBe(printable(`bad ${NASTY}`)); // tabs and line breaks kept as references
    const [failure] = all(cases[1]!, 'failure');
    expect(failure!.attrs.message).toBe(printable(`expected 201 ${NASTY}, got 500`));
    expect(failure!.text).toContain(printable(`< 500 ${NASTY}`));
    expect(all(cases[3]!, 'skipped')).toHaveLength(1);
    expect(all(cases[2]!, 'system-out')[0]!.text).toBe('x; got y & z');
  });
});

describe('GitHub annotations', () => {
  it('one ::error line per failure, escaped so that it stays one line', () => {
    const lines = githubAnnotations(report).split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^::error title=cardctl smoke%3A cards%3A bad [^\n]*::cards: bad /);
    expect(lines[0]).not.toMatch(/[\r\n]/);
    expect(escapeCommandData('50% done\r\nnext')).toBe('50%25 done%0D%0Anext');
    expect(escapeCommandProperty('a:b,c%')).toBe('a%3Ab%2Cc%25');
  });
});

describe('GitHub job summary', () => {
  it('one row per case, failures first; a cell cannot break the table or hold HTML', () => {
    const md = githubStepSummary({
      ...report,
      cases: [
        ...report.cases,
        { name: 'pipe | <b>x</b>', status: 'passed', expected: 'a\nb', got: 'c\\|d', time_ms: 1 },
      ],
    });
    expect(md).toMatch(/^### ❌ cardctl smoke: 5 cases, 2 passed, 1 failed/m);
    const rows = md.split('\n').filter((l) => /^\| (?!case |---)/.test(l));
    expect(rows).toHaveLength(5);
    expect(rows[0]).toMatch(/^\| cards: bad .* \| ❌ failed \| /);
    const last = rows.at(-1)!;
    expect(last).toBe('| pipe \\| &lt;b&gt;x&lt;/b&gt; | ✅ passed | a b | c\\\\\\|d | 1 |');
    for (const r of rows) expect(r.split(/(?<!\\)\|/).length).toBe(7); // 5 cells between 6 unescaped bars
  });
});
