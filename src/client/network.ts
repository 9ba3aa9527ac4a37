// The network settings of a session (PRODUCT.md, "Network"): the extra CA certificates and
// the proxy in use, as `--verbose` and `doctor` show them.
import { X509Certificate } from 'node:crypto';
import { FileTooLargeError, readFileBounded } from './bounded-read.js';
import { usageError } from '../errors.js';
import { proxyFor, showProxy } from './proxy.js';

export interface CaChoice {
  file: string;
  /** where the file was named: --ca-file, CARDCTL_CA_FILE or the profile */
  source: string;
}

/** `--ca-file`, else CARDCTL_CA_FILE, else the profile's `ca_file` (NODE_EXTRA_CA_CERTS node reads itself). */
export function chooseCaFile(opts: {
  flag?: string;
  profile?: string;
  profileName?: string;
  env: NodeJS.ProcessEnv;
}): CaChoice | undefined {
  if (opts.flag) return { file: opts.flag, source: '--ca-file' };
  if (opts.env.CARDCTL_CA_FILE) return { file: opts.env.CARDCTL_CA_FILE, source: 'CARDCTL_CA_FILE' };
  if (opts.profile) return { file: opts.profile, source: `the ca_file of profile ${opts.profileName ?? ''}`.trim() };
  return undefined;
}

/** The CA file for a message: its path when typed here or stored in a profile; from the environment, only the variable's name (docs/profiles.md). */
export function caFileNamed(choice: CaChoice): string {
  return choice.source === 'CARDCTL_CA_FILE'
    ? 'the CA file CARDCTL_CA_FILE names'
    : `the CA file ${choice.file} (from ${choice.source})`;
}

/** A CA bundle larger than this is refused (the system's whole bundle is about 220 KiB). */
export const MAX_CA_FILE_BYTES = 8 * 1024 * 1024;

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g;

/** The PEM text of the CA file; a usage error (exit 2) naming the file when it cannot serve. */
export function readCaFile(choice: CaChoice): string {
  let text: string;
  try {
    text = readFileBounded(choice.file, MAX_CA_FILE_BYTES).toString('utf8');
  } catch (err) {
    if (err instanceof FileTooLargeError) {
      throw usageError(
        `${caFileNamed(choice)} is larger than ${MAX_CA_FILE_BYTES / 1024 / 1024} MiB: not a CA bundle.`,
        'Give the path of a PEM file holding the CA certificates to trust.',
      );
    }
    const code = (err as NodeJS.ErrnoException).code;
    throw usageError(
      `cannot read ${caFileNamed(choice)}: ${code === 'ENOENT' ? 'no such file' : (code ?? (err as Error).message)}.`,
      'Give the path of a PEM file holding the CA certificates to trust.',
    );
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----')) {
    throw usageError(
      `${caFileNamed(choice)} holds no PEM certificate.`,
      'It must hold one or more "-----BEGIN CERTIFICATE-----" blocks.',
    );
  }
  // each block parsed now, so a damaged one is named here, not later as an untrusted server
  let n = 0;
  for (const m of text.matchAll(PEM_BLOCK)) {
    n++;
    const line = text.slice(0, m.index).split('\n').length;
    const b64 = m[1]!.replace(/\s+/g, '');
    const problem =
      !/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 !== 0
        ? 'its base64 is invalid'
        : parsesAsCertificate(m[0])
          ? null
          : 'it is not an X.509 certificate';
    if (problem)
      throw usageError(
        `${caFileNamed(choice)}: certificate ${n} (line ${line}): ${problem}.`,
        'Export the CA certificate again in PEM form (e.g. `openssl x509 -in ca.crt -out ca.pem`).',
      );
  }
  if (n === 0)
    throw usageError(
      `${caFileNamed(choice)} has a "-----BEGIN CERTIFICATE-----" line without its "-----END CERTIFICATE-----".`,
      'Export the CA certificate again in PEM form.',
    );
  return text;
}

function parsesAsCertificate(pem: string): boolean {
  try {
    new X509Certificate(pem);
    return true;
  } catch {
    return false;
  }
}

/** One line saying how requests to `baseUrl` travel: through which proxy (never its credentials), or directly and why. */
export function describeRoute(baseUrl: string, env: NodeJS.ProcessEnv): string {
  let target: URL;
  try {
    target = new URL(baseUrl);
  } catch {
    return 'proxy: none (the base URL is not a URL)';
  }
  try {
    const d = proxyFor(target, env);
    if (d.proxy)
      return `proxy: ${showProxy(d.proxy.url)} (from ${d.proxy.variable}${target.protocol === 'https:' ? ', CONNECT tunnel' : ''})`;
    return `proxy: none (${d.reason})`;
  } catch (err) {
    return `proxy: unusable (${(err as Error).message})`;
  }
}
