// Colour only for people: a terminal, and no NO_COLOR (https://no-color.org). chalk loads lazily.
import type { ChalkInstance } from 'chalk';

export function colorEnabled(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return Boolean(stream.isTTY) && env.TERM !== 'dumb';
}

/** A chalk instance for `stream`, level 0 (no escapes) when colour is off. */
export async function chalkFor(stream: { isTTY?: boolean }): Promise<ChalkInstance> {
  const { Chalk } = await import('chalk');
  return new Chalk({ level: colorEnabled(stream) ? 1 : 0 });
}
