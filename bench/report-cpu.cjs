// Preloaded (`node --require`) into a benchmarked command by bench/batch-send.mjs: appends the
// process's CPU time (user + system, in microseconds) to $BENCH_CPU_FILE when it exits.
'use strict';
process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  require('node:fs').appendFileSync(process.env.BENCH_CPU_FILE, `${user + system}\n`);
});
