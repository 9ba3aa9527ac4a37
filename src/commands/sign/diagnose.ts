import { Flags } from '../../cli/oclif.js';
import { outcome, result, type Result } from '../../output/render.js';
import { BaseCommand } from '../../cli/base-command.js';

export default class SignDiagnose extends BaseCommand {
  static override summary =
    "Find out why a request's signature fails: recompute it and name the client mistake that reproduces it.";
  static override description =
    'FILE holds the failing request as raw HTTP/1.1 text, as a proxy dump or `curl -v` shows it (request line, headers, blank line, body; ' +
    '"> " prefixes, CRLF or LF, absolute URLs accepted). With Content-Length the body is exactly that many bytes.\n' +
    "Or as a curl command line (a browser's or Postman's \"Copy as cURL\": -X, -H, -d/--data-raw/--data-binary, '...', \"...\" and $'...' quoting), " +
    "or as a HAR file (a browser's or a proxy's export: the first request to /api/v1 is diagnosed, and the count of the others said).\n" +
    'Optional comment lines before the request line: "# body_sha256: <hex>" (the hash the client computed; an X-Content-Sha256, ' +
    'X-Body-Sha256 or Content-Digest header works too) and "# canonical: \\"<JSON string>\\"" (the canonical string the client logged).\n' +
    'Tries each known mistake and every pair of them: query not sorted, %20 for a space, brackets encoded, trailing slash, path without /api/v1, ' +
    'body re-serialized, secret base64-decoded, timestamp in milliseconds, method not uppercased, hex or url-safe base64 signature, trailing newline, and more. ' +
    'Also reports a stale timestamp, missing headers and a declared body hash that does not match the body. ' +
    'When nothing else explains it, tries the secrets of the other stored profiles and names the one that reproduces the signature (never the secret).\n' +
    'The signature the server expects is shown by its first 6 characters only: a diagnosis pasted beside its request must not be a request the server accepts.\n' +
    'Exit 0 when the signature is valid, 3 when it is not (found or not).';
  static override examples = [
    '<%= config.bin %> sign diagnose --request failing.http',
    'pbpaste | <%= config.bin %> sign diagnose --request - --json',
    '<%= config.bin %> sign diagnose --request copied-as-curl.txt',
  ];
  static override flags = {
    request: Flags.string({
      char: 'r',
      description: 'file with the request (raw HTTP, a curl command line or a HAR file), or - for stdin',
      required: true,
    }),
    profile: Flags.string({ char: 'p', description: 'profile whose secret signed the request' }),
    now: Flags.string({ description: 'Unix seconds to check the timestamp against (default: now)' }),
    'show-valid-signature': Flags.boolean({
      description:
        'print the whole signature the server expects: with the request beside it, that is a request the server accepts for up to 300 s (default: its first 6 characters)',
    }),
    'try-secret-commands': Flags.boolean({
      description:
        "when nothing else explains the signature, also run the other profiles' secret commands (they may prompt) to try their secrets",
    }),
  };

  async run(): Promise<Result> {
    const { flags } = await this.parse(SignDiagnose);
    const [{ runDiagnose, parseUnixSeconds }, { diagnosisJson, formatDiagnosis }, { exitCodeForKind }] =
      await Promise.all([
        import('../../cli/signing-tools.js'),
        import('../../output/diagnosis.js'),
        import('../../cli/exit-codes.js'),
      ]);
    const d = await runDiagnose({
      request: flags.request,
      profile: flags.profile,
      now: parseUnixSeconds(flags.now, '--now'),
      trySecretCommands: flags['try-secret-commands'],
    });
    const show = { showValid: flags['show-valid-signature'] };
    // The verdict is the output; the exit code still says "signature invalid" (3).
    return outcome(
      result(diagnosisJson(d, show), () => formatDiagnosis(d, show)),
      { exitCode: d.valid ? undefined : exitCodeForKind('signature_invalid') },
    );
  }
}
