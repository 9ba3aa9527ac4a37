import { type Section } from '../context.js';
import { expect } from '../runner.js';

export const section: Section = {
  title: "The mock's request log: every refusal explained",
  async run(ctx) {
    const { r, mock, ids } = ctx;
    // Someone's own HTTP code signs the body pretty-printed and sends it compact: the mock
    // answers 401 invalid_signature, and its request log says why.
    const { signRequest } = await import('../../signing/index.js');
    const body = { customer_id: ids.customer, amount_minor: 5000 };
    const path = `${new URL(mock.baseUrl).pathname}/cards`;
    const signed = signRequest({
      method: 'POST',
      path,
      keyId: mock.keys.test.keyId,
      secret: mock.keys.test.secret,
      timestamp: Math.floor(Date.now() / 1000),
      nonce: `demo-requests-${Date.now()}`,
      body: JSON.stringify(body, null, 2),
    });
    const res = await fetch(new URL(mock.baseUrl).origin + path, {
      method: 'POST',
      headers: { ...signed.headers, 'Content-Type': 'application/json', 'Idempotency-Key': 'demo-requests-1' },
      body: JSON.stringify(body),
    });
    expect(res.status === 401, `the mock should refuse the request (401), not answer ${res.status}`);
    r.say(
      'A client of your own sent POST /api/v1/cards signed over the pretty-printed body, but sent it compact: the mock answered 401 invalid_signature.',
    );
    let id = '';
    await r.step({
      name: 'mock requests: failed',
      title: 'Ask the mock why: its request log, one line per request with the diagnosis',
      argv: ['mock', 'requests', '--failed', '--limit', '1'],
      maxLines: 3,
      check: ({ stdout }) => {
        const m = /(req_\d+) +POST \/api\/v1\/cards +401 invalid_signature .*body_pretty_printed/.exec(stdout);
        expect(m !== null, 'expected the refused POST with the diagnosis body_pretty_printed');
        id = m![1]!;
        return `${id}: body_pretty_printed`;
      },
    });
    await r.step({
      name: 'mock requests: show',
      title: 'The whole record: what to change, and the canonical string the mock built',
      argv: ['mock', 'requests', 'show', id],
      maxLines: 40,
      check: async ({ stdout }) => {
        const kept = await ctx.control('GET', `/requests/${id}`);
        expect(
          kept.diagnosis.id === 'body_pretty_printed' && /^diagnosis +body_pretty_printed$/m.test(stdout),
          'the record should carry the diagnosis the mock keeps',
        );
        expect(
          /^ +7 +[0-9a-f]{64}$/m.test(stdout) && kept.diagnosis.details.canonical.length === 7,
          'expected the seven canonical fields',
        );
        expect(!stdout.includes(mock.keys.test.secret), 'no secret in the record');
        return 'same diagnosis as sign diagnose: body_pretty_printed; no secret';
      },
    });
    await r.step({
      name: 'mock console',
      title: "The same log, live, in a browser: the console on the mock's port (a one-time login address)",
      argv: ['mock', 'console', '--jq', '.login_url'],
      check: async ({ stdout }) => {
        const url = stdout.trim();
        expect(/^http:\/\/127\.0\.0\.1:\d+\/_console\//.test(url), `unexpected login address: ${url}`);
        const res = await fetch(url, { redirect: 'manual' });
        const cookie = res.headers.get('set-cookie') ?? '';
        expect(res.status >= 300 && res.status < 400 && /HttpOnly/i.test(cookie), 'the code should become a cookie');
        return 'login code exchanged for an HttpOnly cookie';
      },
    });
  },
};
