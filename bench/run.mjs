// `npm run bench`: every benchmark in turn. Each prints its own ratios against a baseline
// measured in the same run; nothing here asserts, the figures go to bench/README.md.
import { existsSync } from 'node:fs';

await import('./signing.mjs');
console.log('');
await import('./startup.mjs');
if (existsSync(new URL('./mock-throughput.mjs', import.meta.url))) {
  console.log('');
  await import('./mock-throughput.mjs');
}
console.log('');
await import('./mock-state.mjs');
console.log('');
await import('./request-log-memory.mjs');
console.log('');
await import('./mock-big-bodies.mjs');
console.log('');
await import('./redaction.mjs');
