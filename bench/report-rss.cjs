// Preloaded (`node --require`) into a benchmarked command by the benches, only in the runs that
// measure memory (not in the timed runs): appends the process's peak resident set size in KiB to
// $BENCH_RSS_FILE when it exits. On Linux it is VmHWM of /proc/self/status: the peak of this
// program's own memory. process.resourceUsage().maxRSS also counts the copy of the parent that
// fork() made before exec (Linux folds the forked copy's peak into the child's), so a bench holding
// a large result (a million-row rerun's 170 MB of stdout) made the next child report at least
// that much: measured, a child of a parent holding 300 MiB reported maxRSS 304 MiB, VmHWM 39 MiB.
'use strict';
process.on('exit', () => {
  const fs = require('node:fs');
  let kib = process.resourceUsage().maxRSS;
  try {
    const hwm = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    if (hwm) kib = Number(hwm[1]);
  } catch {
    // no /proc (not Linux): maxRSS, which may include the parent's copy
  }
  fs.appendFileSync(process.env.BENCH_RSS_FILE, `${kib}\n`);
});
