// The esbuild plugin of scripts/build-binary.mjs that leaves the packages (node_modules) out of
// the binary's app script: each import of a package becomes a small facade over
// `require('NAME')`, which the binary's prelude (scripts/binary/prelude.cjs) answers from the
// second script, packages.cjs. The facade gives what Node's import of that package gives (dist/
// is ESM, "type": "module"): a CommonJS package's module.exports as its default and named
// exports; an ES module's default and named exports. `names` collects the packages, as imported.
import { createRequire, isBuiltin } from 'node:module';
import { join } from 'node:path';

export function leavePackagesOut(root) {
  const rootRequire = createRequire(join(root, 'package.json'));
  const names = new Set();
  const plugin = {
    name: 'cardctl-packages-left-out',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (isBuiltin(args.path) || args.path.startsWith('cardctl-binary:')) return undefined;
        // the facade's own require: left to the prelude
        if (args.namespace === 'cardctl-package') return { path: args.path, external: true };
        names.add(args.path);
        return { path: args.path, namespace: 'cardctl-package' };
      });
      b.onLoad({ filter: /.*/, namespace: 'cardctl-package' }, async (args) => {
        const ns = await import(args.path);
        let commonjs;
        try {
          commonjs = rootRequire(args.path) === ns.default;
        } catch {
          commonjs = false; // an ES module (require cannot load it on Node 20)
        }
        const req = `require(${JSON.stringify(args.path)})`;
        if (commonjs) return { contents: `module.exports = ${req};`, loader: 'js', resolveDir: root };
        const named = Object.keys(ns).filter((k) => k !== 'default' && /^[A-Za-z_$][\w$]*$/.test(k));
        return {
          contents: [
            `const ns = ${req};`,
            // a package with both builds (postgres): packages.cjs holds its CommonJS one, the function itself
            'default' in ns ? 'export default ns.default === undefined ? ns : ns.default;' : '',
            named.length ? `export const { ${named.join(', ')} } = ns;` : '',
          ].join('\n'),
          loader: 'js',
          resolveDir: root,
        };
      });
    },
  };
  return { plugin, names };
}
