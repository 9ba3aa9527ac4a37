// A copy of the built package in a temporary folder (bin/, dist/, package.json and the manifest
// copied; node_modules linked), with some of its built files replaced: a build whose parts fail
// as an install on a user's machine could, with nothing in the product switched for the test.
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './cli.js';

export interface PackageCopy {
  root: string;
  /** its bin/run.js (CliOptions.bin) */
  bin: string;
  cleanup(): void;
}

/** `replace`: a path under the package (`dist/...`) -> the text written there instead. */
export function packageCopy(replace: Record<string, string>): PackageCopy {
  const root = mkdtempSync(join(tmpdir(), 'cardctl-package-'));
  for (const part of ['bin', 'dist', 'package.json', 'oclif.manifest.json'])
    cpSync(join(ROOT, part), join(root, part), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
  for (const [path, text] of Object.entries(replace)) writeFileSync(join(root, path), text);
  return { root, bin: join(root, 'bin', 'run.js'), cleanup: () => rmSync(root, { recursive: true, force: true }) };
}
