import { Args, Flags } from '../../cli/oclif.js';
import { result, type Result } from '../../output/render.js';
import { BaseCommand } from '../../cli/base-command.js';
import { usageError } from '../../errors.js';

export default class ProfilesAdd extends BaseCommand {
  static override summary =
    'Save a profile: key id, mode, base URL and secret (from stdin, a hidden prompt, or a command run when needed).';
  static override description =
    'The secret is never taken as a flag value. On a terminal cardctl asks for it without echo; otherwise pass --secret-stdin and pipe one line ' +
    '(with --webhook-secret-stdin too: line 1 the API secret, line 2 the webhook signing secret). ' +
    'With --secret-command CMD the secret is not stored: cardctl runs CMD with /bin/sh -c when it needs the secret (once per run, without stdin, ' +
    'within 10 s unless --secret-command-timeout says otherwise) and uses what it prints, minus one final newline. The first profile becomes the default.';
  static override examples = [
    'printf \'%s\\n\' "$SECRET" | <%= config.bin %> profiles add ci --key-id 01JD2Q7N8V3K4M5P6R7S8T9V0W --mode test --secret-stdin',
    'printf \'%s\\n%s\\n\' "$SECRET" "$WEBHOOK_SECRET" | <%= config.bin %> profiles add prod --key-id 01JD2Q7N8V3K4M5P6R7S8T9V0W --mode live --base-url https://api.example.com/api/v1 --secret-stdin --webhook-secret-stdin',
    '<%= config.bin %> profiles add dev --key-id 01JD2Q7N8V3K4M5P6R7S8T9V0W --mode test   # asks for the secret',
    "<%= config.bin %> profiles add ci --key-id 01JD2Q7N8V3K4M5P6R7S8T9V0W --mode test --secret-command 'pass show cardctl/ci'",
  ];
  // Parsed without strictness (see run): oclif would echo a stray positional secret in its error;
  // run() refuses it without repeating it. The class itself stays strict so that the usage line
  // shows one NAME, not NAME...
  static override args = {
    name: Args.string({ description: 'profile name: 1-64 of A-Z a-z 0-9 . _ -', required: true }),
  };
  static override flags = {
    'key-id': Flags.string({ description: 'API key id (26-character ULID)', required: true }),
    mode: Flags.string({ description: 'test or live', required: true, options: ['test', 'live'] }),
    'base-url': Flags.string({
      description: 'API address including /api/v1 (default: the local mock, http://127.0.0.1:4010/api/v1)',
    }),
    'ca-file': Flags.string({
      description:
        "PEM file of CA certificates to trust for this profile, in addition to the system's (a company proxy or a private CA)",
    }),
    timeout: Flags.string({
      description:
        'seconds each request attempt may take with this profile (below --timeout and CARDCTL_TIMEOUT; default 30)',
    }),
    'secret-stdin': Flags.boolean({ description: 'read the API secret from the first line of stdin', default: false }),
    'webhook-secret-stdin': Flags.boolean({
      description: 'read the webhook signing secret from the second line of stdin (needs --secret-stdin)',
      default: false,
    }),
    'secret-command': Flags.string({
      description:
        'shell command that prints the API secret when it is needed (a vault CLI, pass, secret-tool, op read); the secret is never stored',
    }),
    'webhook-secret-command': Flags.string({
      description: 'shell command that prints the webhook signing secret when it is needed',
    }),
    'secret-command-timeout': Flags.integer({
      description: 'seconds a secret command may take before it is stopped (default 10)',
      min: 1,
      max: 600,
    }),
    default: Flags.boolean({ description: 'make it the default profile', default: false }),
    force: Flags.boolean({ description: 'replace an existing profile of that name', default: false }),
    // Declared only to refuse them without oclif echoing the value in "Nonexistent flag: --secret=...".
    secret: Flags.string({ hidden: true }),
    'webhook-secret': Flags.string({ hidden: true }),
  };

  async run(): Promise<Result> {
    const { args, argv, flags } = await this.parse({
      args: ProfilesAdd.args,
      flags: ProfilesAdd.flags,
      baseFlags: ProfilesAdd.baseFlags,
      strict: false,
    });
    const extra = (argv as string[]).slice(1);
    const secretFlag = flags.secret !== undefined || flags['webhook-secret'] !== undefined;
    if (extra.length > 0 || secretFlag) {
      throw usageError(
        secretFlag
          ? 'a secret is never accepted as a flag value (it would stay in shell history and show in `ps`).'
          : `unexpected ${extra.length === 1 ? 'argument' : 'arguments'} after the profile name (not repeated here, in case it is a secret).`,
        'Pipe the secret with --secret-stdin, or leave it out to be asked on a terminal. If you typed a secret on the command line, consider rolling it. See `cardctl profiles add --help`.',
      );
    }
    const [{ addFromCommand }, { shownStorePath }] = await Promise.all([
      import('../../profiles/actions.js'),
      import('../../profiles/store.js'),
    ]);
    const timeoutMs =
      flags.timeout === undefined
        ? undefined
        : (await import('../../client/timeout.js')).parseTimeoutSeconds(flags.timeout, '--timeout');
    const added = await addFromCommand({
      name: args.name,
      keyId: flags['key-id'],
      mode: flags.mode,
      baseUrl: flags['base-url'],
      caFile: flags['ca-file'],
      timeout: timeoutMs === undefined ? undefined : timeoutMs / 1000,
      secretStdin: flags['secret-stdin'],
      webhookSecretStdin: flags['webhook-secret-stdin'],
      secretCommand: flags['secret-command'],
      webhookSecretCommand: flags['webhook-secret-command'],
      secretCommandTimeout: flags['secret-command-timeout'],
      makeDefault: flags.default,
      force: flags.force,
    });
    if (flags.json) return result(added.summary);
    const p = added.profile;
    const fetched =
      p.secretCommand !== undefined
        ? ` Its secret is not stored: \`${p.secretCommand}\` prints it when needed (\`cardctl doctor -p ${p.name}\` tries it).`
        : '';
    // people get the line on stderr and nothing on stdout
    return result(added.summary, () => '', [
      `${added.replaced ? 'Replaced' : 'Saved'} profile ${p.name} (${p.mode}, key ${p.keyId}, ${p.baseUrl}) in ${shownStorePath(added.path)}` +
        (added.isDefault
          ? '; it is the default.'
          : `. Use it with --profile ${p.name}, or make it the default: cardctl profiles use ${p.name}.`) +
        fetched,
    ]);
  }
}
