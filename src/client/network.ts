// The network settings of a session (PRODUCT.md, "Network"): the extra CA certificates and
// the proxy in use, as `--verbose` and `doctor` show them.
import { readFileSync } from 'node:fs';
import { usageError } from '../errors.js';
import { proxyFor, showProxy } from './proxy.js';

export interface CaChoice {
  file: string;
  /** where the file was named: --ca-file, CARDCTL_CA_FILE or the profile */
  source: string;
}

/** `--ca-file`, else CARDCTL_CA_FILE, else the profile's `ca_file` (NODE_EXTRA_CA_CERTS node reads itself). */
export function chooseCaFile(opts: { flag?: string; profile?: string; profileName?: string; env: NodeJS.ProcessEnv }): CaChoice | undefined {
  if (opts.flag) return { file: opts.flag, source: '--ca-file' };
  if (opts.env.CARDCTL_CA_FILE) return { file: opts.env.CARDCTL_CA_FILE, source: 'CARDCTL_CA_FILE' };
  if (opts.profile) return { file: opts.profile, source: `the ca_file of profile ${opts.profileName ?? ''}`.trim() };
  return undefined;
}

/** The PEM text of the CA file; a usage error (exit 2) naming the file when it cannot serve. */
export function readCaFile(choice: CaChoice): string {
  let text: string;
  try {
    text = readFileSync(choice.file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw usageError(`cannot read the CA file ${choice.file} (from ${choice.source}): ${code === 'ENOENT' ? 'no such file' : code ?? (err as Error).message}.`, 'Give the path of a PEM file holding the CA certificates to trust.');
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----')) {
    throw usageError(`the CA file ${choice.file} (from ${choice.source}) holds no PEM certificate.`, 'It must hold one or more "-----BEGIN CERTIFICATE-----" blocks.');
  }
  return text;
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
    if (d.proxy) return `proxy: ${showProxy(d.proxy.url)} (from ${d.proxy.variable}${target.protocol === 'https:' ? ', CONNECT tunnel' : ''})`;
    return `proxy: none (${d.reason})`;
  } catch (err) {
    return `proxy: unusable (${(err as Error).message})`;
  }
}
