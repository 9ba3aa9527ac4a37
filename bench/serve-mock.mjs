// A mock for the start-up benchmark, in its own process (the benchmark times children with
// spawnSync, which blocks its own event loop). Starts the embedded mock with a practically
// unlimited rate limit and no provider latency, makes a customer and a card, prints one JSON
// line {baseUrl, keyId, secret, customerId, cardId} and serves until stdin closes.
import { startMockWithCard } from './lib.mjs';

const { mock, customerId, cardId } = await startMockWithCard();
const key = mock.keys.test;
const minLoad = Math.max(1, ...mock.products.filter((p) => p.default).map((p) => p.min_initial_load_minor));

process.stdout.write(
  JSON.stringify({ baseUrl: mock.baseUrl, keyId: key.keyId, secret: key.secret, customerId, cardId, minLoad }) + '\n',
);
process.stdin.resume();
process.stdin.on('end', () => void mock.close().then(() => process.exit(0)));
process.on('SIGTERM', () => void mock.close().then(() => process.exit(0)));
