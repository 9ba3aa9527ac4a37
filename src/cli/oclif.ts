// The one door to oclif for command definitions: commands and shared flag sets import
// `Args`, `Flags` and `Command` from here, never from '@oclif/core' itself, so that the
// start-up fast path (src/cli/fast-path.ts) can run the same command classes without
// importing oclif.
export { Args, Command, Flags } from '@oclif/core';
