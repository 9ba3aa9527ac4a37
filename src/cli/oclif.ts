// The one door to oclif for command definitions: commands and shared flag sets import
// `Args`, `Flags` and `Command` from here, never from '@oclif/core' itself. When the start-up
// fast path (src/cli/fast-path.ts) runs a command it sets FAST_PATH first, and the same command
// classes are built on src/cli/lite-oclif.ts instead: oclif is never imported.
import type * as Oclif from '@oclif/core';

export const FAST_PATH = Symbol.for('cardctl.fastPath');

const impl = ((globalThis as Record<symbol, unknown>)[FAST_PATH]
  ? await import('./lite-oclif.js')
  : await import('@oclif/core')) as unknown as Pick<typeof Oclif, 'Args' | 'Command' | 'Flags'>;

export const Args = impl.Args;
export const Flags = impl.Flags;
export const Command = impl.Command;
