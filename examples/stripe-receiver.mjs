// A webhook receiver that verifies cardctl's (and the API's) deliveries with Stripe's Node
// library, stripe-node (docs/webhooks.md, "Verifying with stripe-node"). The header is
// `t=<unix seconds>, v1=<hex>`, with a space after the comma; stripe-node splits it on `,`
// without trimming, so ` v1` is never found ("No signatures found with expected scheme"):
// the items are trimmed first. stripe-node accepts a `t` up to 300 s old but any `t` in the
// future; the spec rejects both, so that is checked too.
//
//   WEBHOOK_SECRET=... node stripe-receiver.mjs 8080      # POST http://127.0.0.1:8080/webhooks
import http from 'node:http';
import Stripe from 'stripe';

const TOLERANCE_S = 300;

/** The event, or an Error saying why the delivery is refused. Never parses the body before the signature matched. */
export function verifyDelivery(rawBody, header, secret, nowS = Math.floor(Date.now() / 1000)) {
  const items = String(header ?? '').split(',').map((item) => item.trim());
  const event = Stripe.webhooks.constructEvent(rawBody, items.join(','), secret, TOLERANCE_S);
  const t = Number(items.find((i) => i.startsWith('t='))?.slice(2));
  if (t - nowS > TOLERANCE_S) throw new Error('Timestamp is in the future');
  return event;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) throw new Error('set WEBHOOK_SECRET to the endpoint signing secret');
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      try {
        const event = verifyDelivery(Buffer.concat(chunks), req.headers['x-service-signature'], secret);
        console.log(`verified ${event.type}`);
        res.writeHead(200).end();
      } catch (err) {
        console.log(`refused: ${err.message}`);
        res.writeHead(400).end(err.message);
      }
    });
  });
  server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () =>
    console.log(`listening on http://127.0.0.1:${server.address().port}/webhooks`),
  );
}
