// Preloaded (`node --require`) into a benchmarked command by bench/startup.mjs, only in the
// runs that measure memory (not in the timed runs): appends the process's peak resident set
// size in KiB to $BENCH_RSS_FILE when it exits.
'use strict';
process.on('exit', () => {
  require('node:fs').appendFileSync(process.env.BENCH_RSS_FILE, `${process.resourceUsage().maxRSS}\n`);
});
