import { type Section } from '../context.js';
import { bodyJson, expect } from '../runner.js';

export const section: Section = {
  title: 'Signatures: sign and diagnose',
  async run(ctx) {
    const { r, mock, ids, write } = ctx;
    // A client that pretty-prints the body it signs but sends it compact: the classic mistake.
    const body = { customer_id: ids.customer, amount_minor: 5000 };
    write('pretty.json', JSON.stringify(body, null, 2));
    const ts = String(Math.floor(Date.now() / 1000));
    const nonce = '6f1c2d3e-4b5a-4c7d-9e8f-0a1b2c3d4e5f';
    let signature = '';
    await r.step({
      name: 'sign: json',
      title: 'Sign a request locally: canonical string, body hash, signature, headers, curl',
      argv: [
        'sign',
        '--method',
        'POST',
        '--path',
        '/cards',
        '--data',
        '@pretty.json',
        '--timestamp',
        ts,
        '--nonce',
        nonce,
        '--json',
      ],
      maxLines: 12,
      check: (run) => {
        signature = bodyJson<{ signature: string }>(run.stdout).signature;
        expect(/^[A-Za-z0-9+/]{43}=$/.test(signature ?? ''), 'expected a base64 signature');
        return 'signature computed';
      },
    });
    const compact = JSON.stringify(body);
    write(
      'failing.http',
      [
        'POST /api/v1/cards HTTP/1.1',
        `Host: ${new URL(mock.baseUrl).host}`,
        'Content-Type: application/json',
        `X-Api-Key: ${mock.keys.test.keyId}`,
        `X-Timestamp: ${ts}`,
        `X-Nonce: ${nonce}`,
        `X-Signature: ${signature}`,
        `Content-Length: ${Buffer.byteLength(compact)}`,
        '',
        compact,
      ].join('\r\n'),
    );
    r.say('failing.http: that signature, on a request whose body was sent compact (as a proxy dump shows it).');
    await r.step({
      name: 'sign: diagnose',
      title: 'Diagnose it: cardctl recomputes the signature and names the mistake (exit 3)',
      argv: ['sign', 'diagnose', '--request', 'failing.http'],
      expectExit: 3,
      maxLines: 4,
      check: ({ stdout }) => {
        expect(stdout.includes('pretty-printed'), 'the diagnosis should name the pretty-printed body');
        return 'mistake named: pretty-printed body';
      },
    });
  },
};
