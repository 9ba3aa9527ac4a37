// oclif's `command_not_found` hook: `cardctl help CMD ...`, and "did you mean" for anything
// else that names no command. The logic is in ../suggest.ts (no oclif), this only adapts it.
import type { Hook } from '@oclif/core';
import { CardctlError } from '../../errors.js';
import { renderError } from '../render-error.js';
import { helpTarget, notFoundError } from '../suggest.js';

const hook: Hook<'command_not_found'> = async function (opts) {
  const argv = process.argv.slice(2);
  const ids = opts.config.commandIDs;
  const topics = opts.config.topics.map((t) => t.name);
  const json = argv.includes('--json');
  if (argv[0] === 'help') {
    const target = helpTarget(argv.slice(1), ids, topics);
    if (target instanceof CardctlError) {
      process.exitCode = renderError(target, json);
      return true;
    }
    if (target.corrected) process.stderr.write(`(showing help for \`cardctl ${target.words.join(' ')}\`)\n`);
    const { loadHelpClass } = await import('@oclif/core');
    const Help = await loadHelpClass(opts.config);
    await new Help(opts.config, opts.config.pjson.oclif.helpOptions).showHelp(target.words);
    return true;
  }
  process.exitCode = renderError(notFoundError(argv, ids, topics), json);
  return true;
};

export default hook;
