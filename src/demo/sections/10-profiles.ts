import { type Section } from '../context.js';
import { expect } from '../runner.js';

export const section: Section = {
  title: 'Profiles: a test key and a live key, and a health check',
  async run(ctx) {
    const { r, mock } = ctx;
    await r.step({
      name: 'profiles: add test',
      title: 'Save the test key. Secrets come from stdin (or a hidden prompt), never from a flag',
      argv: [
        'profiles',
        'add',
        'test',
        '--key-id',
        mock.keys.test.keyId,
        '--mode',
        'test',
        '--base-url',
        mock.baseUrl,
        '--secret-stdin',
        '--webhook-secret-stdin',
      ],
      display: `printf '%s\\n%s\\n' "$TEST_SECRET" "$WEBHOOK_SECRET" | cardctl profiles add test --key-id ${mock.keys.test.keyId} --mode test --base-url ${mock.baseUrl} --secret-stdin --webhook-secret-stdin`,
      input: `${mock.keys.test.secret}\n${mock.webhookSecret}\n`,
    });
    await r.step({
      name: 'profiles: add live',
      title: 'Save the live key',
      argv: [
        'profiles',
        'add',
        'live',
        '--key-id',
        mock.keys.live.keyId,
        '--mode',
        'live',
        '--base-url',
        mock.baseUrl,
        '--secret-stdin',
      ],
      display: `printf '%s\\n' "$LIVE_SECRET" | cardctl profiles add live --key-id ${mock.keys.live.keyId} --mode live --base-url ${mock.baseUrl} --secret-stdin`,
      input: `${mock.keys.live.secret}\n`,
    });
    await r.step({
      name: 'profiles: list',
      title: 'List the profiles (the first one became the default)',
      argv: ['profiles', 'list'],
      check: ({ stdout }) =>
        expect(/\btest\b/.test(stdout) && /\blive\b/.test(stdout), 'both profiles should be listed'),
    });
    await r.step({
      name: 'profiles: show',
      title: 'Show one: the secret appears only as a fingerprint',
      argv: ['profiles', 'show', 'test'],
      check: ({ stdout }) => expect(stdout.includes('sha256:'), 'the secret should show as a fingerprint'),
    });
    // a vault stand-in: a file outside the config folder, read by the profile's command
    ctx.write('vault-test-secret', `${mock.keys.test.secret}\n`);
    await r.step({
      name: 'profiles: secret from a command',
      title:
        'Or keep the secret in your vault: --secret-command runs when a call needs it (pass, op read, secret-tool...); it is never stored',
      argv: [
        'profiles',
        'add',
        'vault',
        '--key-id',
        mock.keys.test.keyId,
        '--mode',
        'test',
        '--base-url',
        mock.baseUrl,
        '--secret-command',
        'cat vault-test-secret',
      ],
      display: `cardctl profiles add vault --key-id ${mock.keys.test.keyId} --mode test --base-url ${mock.baseUrl} --secret-command 'cat vault-test-secret'   # e.g. 'pass show cardctl/test'`,
    });
    await r.step({
      name: 'profiles: doctor with a secret command',
      title: 'doctor runs the command and says where the secret came from',
      argv: ['doctor', '-p', 'vault'],
      grep: '^. (credentials|key) ',
      check: ({ stdout }) => {
        expect(
          /^✓ credentials\s.*the secret from the command `cat vault-test-secret`/m.test(stdout),
          'doctor should name the secret command',
        );
        expect(
          /^✓ key\s+key \S+ accepted/m.test(stdout),
          'the secret from the command should sign requests the mock accepts',
        );
        return 'the command gave the secret; the mock accepted the signature';
      },
    });
    await r.step({
      name: 'doctor',
      title: 'Check what a call needs: credentials, journal, reach, clock, key, mode, scopes (exit 0: nothing failed)',
      argv: ['doctor'],
      check: ({ stdout }) => {
        const lines = stdout.split('\n').filter((l) => /^\S \S/.test(l));
        expect(lines.length >= 7, `${lines.length} checks reported, expected 7`);
        expect(!lines.some((l) => l.startsWith('✗')), 'a check failed');
        expect(/^✓ mode\s+a test key\b/m.test(stdout), 'the mode check should report a test key');
        expect(stdout.includes(mock.keys.test.keyId), 'the key id should be named');
        return 'every check passed, a test key';
      },
    });

    await r.step({
      name: 'doctor: proxy rules',
      title:
        "Proxies follow curl's rules: HTTPS_PROXY/HTTP_PROXY/NO_PROXY (either case); doctor and --verbose say which is in use (here NO_PROXY exempts the local mock)",
      argv: ['doctor'],
      env: { HTTP_PROXY: 'http://127.0.0.1:9', NO_PROXY: 'localhost,127.0.0.1' },
      grep: '^. (network|reach) ',
      check: ({ stdout }) => {
        expect(
          /^✓ network\s+proxy: none \(NO_PROXY matches 127\.0\.0\.1\)/m.test(stdout),
          'doctor should say NO_PROXY exempts the mock',
        );
        expect(/^✓ reach\s/m.test(stdout), 'the mock should be reached directly');
        return 'NO_PROXY honoured, the mock reached directly';
      },
    });
  },
};
