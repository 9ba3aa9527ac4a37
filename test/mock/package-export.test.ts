// Users import the mock by the package name, through package.json's exports map, not by a
// path into dist/. Node resolves a package's own name from inside it, so this is what a
// consumer's `import { startMock } from 'cardctl/mock'` gets.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

describe("import { startMock } from 'cardctl/mock'", () => {
  it('starts the built mock on a free port, answers, and closes', () => {
    const script = `
      import { startMock } from 'cardctl/mock';
      const mock = await startMock({ port: 0 });
      const res = await fetch(mock.baseUrl + '/customers');
      const body = await res.json();
      console.log(JSON.stringify({ baseUrl: mock.baseUrl, status: res.status, code: body.errors.gateway[0], products: mock.products.length }));
      await mock.close();`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout);
    expect(out.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    expect(out.status).toBe(401); // unsigned: the gateway answers, so it is the real server
    expect(out.code).toBe('missing_signature_headers');
    expect(out.products).toBeGreaterThanOrEqual(4);
  });
});
