// A PostgreSQL for the benchmarks (bench/journal-shared.mjs), started as the tests start theirs
// (test/helpers/postgres.ts), with fsync on: prints one JSON line {url, password} and serves until
// stdin closes. Run with vite-node (it reads the harness's TypeScript).
import { startPostgres } from '../test/helpers/postgres.js';

const pg = await startPostgres({ durable: true });
process.stdout.write(`${JSON.stringify({ url: pg.url })}\n`);
const stop = () => void pg.stop().then(() => process.exit(0));
process.stdin.resume();
process.stdin.on('end', stop);
process.on('SIGTERM', stop);
