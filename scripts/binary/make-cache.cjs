// Build step of scripts/build-binary.mjs: V8's code cache of the bundle after a warm-up run.
// A SEA's own code cache (useCodeCache) holds what was compiled when the blob was made: the top
// level only. Here the bundle runs one representative command first (argv after `--`: a
// `cards get` that finds no server), so the cache also holds the functions the fast path, the
// command, the client and the error rendering compile; the binary's prelude
// (scripts/binary/prelude.cjs) compiles the bundle with it. Same node, same V8: it is accepted.
// Usage: node make-cache.cjs BUNDLE.js OUT.cache -- ARGS...
'use strict';
const { readFileSync, writeFileSync } = require('node:fs');
const { Script } = require('node:vm');

const [bundle, out, sep, ...args] = process.argv.slice(2);
if (sep !== '--') throw new Error('usage: make-cache.cjs BUNDLE OUT -- ARGS...');
const script = new Script(readFileSync(bundle, 'utf8'), { filename: '/$cardctl/cardctl.cjs' });
process.argv = [process.argv[0], process.argv[0], ...args];
process.once('exit', () => writeFileSync(out, script.createCachedData()));
script.runInThisContext()(require, module, exports, __filename, __dirname);
