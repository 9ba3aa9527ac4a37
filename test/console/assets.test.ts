// The console's page ships in the package and stays light (issue 37): its files are copied to
// dist/ by the build, at most 150 KB in all, plain HTML/JS/CSS without inline script or anything
// loaded from elsewhere, and served with the CSP that forbids both. No browser needed.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { CSP } from '../../src/console/guard.js';

const src = join(ROOT, 'src', 'console', 'assets');
const dist = join(ROOT, 'dist', 'console', 'assets');
const files = readdirSync(src);

describe('the console page', () => {
  it('is at most 150 KB, every file copied to dist/ by the build', () => {
    const total = files.reduce((n, f) => n + statSync(join(src, f)).size, 0);
    expect(total).toBeLessThanOrEqual(150 * 1024);
    for (const f of files) expect(readFileSync(join(dist, f), 'utf8')).toBe(readFileSync(join(src, f), 'utf8'));
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.files).toContain('dist');
  });

  it('has no inline script or style, and loads nothing from another origin', () => {
    for (const f of files.filter((n) => n.endsWith('.html'))) {
      const html = readFileSync(join(src, f), 'utf8');
      expect(html, f).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i);
      expect(html, f).not.toMatch(/\son[a-z]+=|style=|<style/i);
      expect(html, f).not.toMatch(/(?:src|href)="(?:https?:)?\/\//i);
    }
    const js = readFileSync(join(src, 'console.js'), 'utf8');
    expect(js).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/);
    expect(CSP).toContain("default-src 'self'");
    expect(CSP).toContain("script-src 'self'");
    expect(CSP).not.toContain('unsafe-inline');
  });
});
