// The single-file binary (dist-bin/cardctl, `npm run build:binary`; docs/binary.md) against the
// npm install, as whole processes: each pair runs A then B, and the ratio quoted is the median
// of the pairs' ratios (a pair shares the machine's state of the moment). The API command runs
// against the embedded mock in its own process (bench/serve-mock.mjs) with a profile read from
// a temporary config folder, as in bench/startup.mjs. BENCH_RUNS=N pairs (default 21).
//
// The baselines: `node -e 0` of the Node line the binary embeds (the binary is that node plus our
// script: the honest floor), and of the machine's node, both in the same run. Every command runs
// without NODE_EXTRA_CA_CERTS: Node 20 reads those certificates at every start (about 85 ms when
// they are the whole system store, as on these machines), Node 22 and newer only when TLS needs
// them, so with it set every Node 20 figure, `node -e 0` included, carries a cost a user's machine
// does not have. One info line says what it costs the machine's node here (bench/cli-harness.mjs).
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LINES, nodeBinary } from '../scripts/node-lines.mjs';
import {
  bin,
  extraCaCertsCase,
  extraCaCertsInfo,
  node,
  pairedRatio,
  root,
  timeInRounds,
  verdict,
  withBenchMock,
} from './cli-harness.mjs';
import { fmt, median } from './lib.mjs';

const exe = join(root, 'dist-bin', 'cardctl');
const RUNS = Number(process.env.BENCH_RUNS ?? 21);
if (!existsSync(exe)) {
  console.error(
    'bench/binary.mjs: no dist-bin/cardctl: run `npm run build:binary` first (`npm run bench:binary` does).',
  );
  process.exit(1);
}

await withBenchMock(
  async ({ fixture, env }) => {
    const get = ['cards', 'get', fixture.cardId];
    // the node the binary embeds: its line's binary from the npm registry (cached in .ci/cache/)
    const embedded = execFileSync(exe, ['--version'], { encoding: 'utf8', env: { PATH: '' } }).match(
      /node-v(\d+)\.[\d.]+/,
    );
    const lineNode = embedded && LINES[embedded[1]] === embedded[0].slice(6) ? nodeBinary(embedded[1]) : null;
    if (!lineNode)
      console.error(
        `bench/binary.mjs: the binary embeds ${embedded?.[0] ?? 'an unknown node'}, not a line of scripts/node-lines.mjs: no same-line baseline`,
      );
    const lineName = embedded ? `node${embedded[1]}` : 'line';
    const leastGet = [lineNode, [join(root, 'bench', 'least-get.cjs'), fixture.cardId]];
    // [name, A, B, target]: A and B as [command, args]
    const pairs = [
      ['binary --version / node bin/run.js --version', [exe, ['--version']], [node, [bin, '--version']], 1.0],
      ...(lineNode
        ? [[`binary cards get ID / ${lineName} -e 0 (same Node)`, [exe, get], [lineNode, ['-e', '0']], 1.3]]
        : []),
      [
        `binary cards get ID / node -e 0 (machine's ${process.version})`,
        [exe, get],
        [node, ['-e', '0']],
        lineNode ? null : 1.3,
      ],
      [`npm install cards get ID / node -e 0 (info)`, [node, [bin, ...get]], [node, ['-e', '0']], null],
      // the floor: a plain script making the same call (bench/least-get.cjs) on the binary's Node
      ...(lineNode
        ? [[`least a Node process does for it / ${lineName} -e 0 (info)`, leastGet, [lineNode, ['-e', '0']], null]]
        : []),
      ...(lineNode ? [['binary cards get ID / that least (info)', [exe, get], leastGet, null]] : []),
      ...(lineNode
        ? [[`binary --version / ${lineName} -e 0 (info)`, [exe, ['--version']], [lineNode, ['-e', '0']], null]]
        : []),
    ];
    const caseOf = ([cmd, args, extra]) => [cmd, args, { ...env, ...extra }];
    // every round runs each pair, A then B
    const times = timeInRounds(
      {
        ...Object.fromEntries(
          pairs.flatMap(([name, a, b]) => [
            [`${name} A`, caseOf(a)],
            [`${name} B`, caseOf(b)],
          ]),
        ),
        ...extraCaCertsCase(env),
      },
      RUNS,
    );
    // a node's baseline: the B runs of that node without extra environment, in every pair
    const base = (n) => pairs.filter(([, , b]) => b[0] === n && !b[2]).flatMap(([name]) => times[`${name} B`]);
    const baseOf = (n) => (base(n).length > 0 ? `${fmt(median(base(n)), 1)} ms` : 'not run');
    console.log(
      `single-file binary, median of ${RUNS} paired ratios, wall time (node -e 0 = ${baseOf(node)} on the machine's ${process.version}${lineNode ? `, ${baseOf(lineNode)} on the binary's ${embedded[0]}` : ''}; NODE_EXTRA_CA_CERTS unset)`,
    );
    pairs.forEach(([name, , , target]) => {
      const r = pairedRatio(times, `${name} A`, `${name} B`);
      console.log(`  ${name.padEnd(58)} ratio=${fmt(r)}  ${verdict(r, target)}`);
    });
    const info = extraCaCertsInfo(times, 'npm install cards get ID / node -e 0 (info) B', fmt);
    if (info) console.log(info);
    console.log(
      `  ${'size of dist-bin/cardctl'.padEnd(58)} ${fmt(statSync(exe).size / 2 ** 20, 1)} MiB (the node it embeds: ${fmt(statSync(lineNode ?? node).size / 2 ** 20, 1)} MiB)`,
    );
  },
  { tmpPrefix: 'cardctl-bench-bin-' },
);
