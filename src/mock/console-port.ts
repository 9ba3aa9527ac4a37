// The seam between the mock and its web console (src/console/): the server hands the console's
// paths to it, and the control plane asks it for a login address (`cardctl mock console`). The
// console is wired by startMock; the mock itself knows nothing of pages.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { EVENT_TYPES } from '../contract/resources.js';
import { FAULT_KINDS } from './faults.js';
import type { Runtime } from './runtime.js';

/** The choices the console's controls offer: the control plane's own lists, never a copy in the page. */
export const CONTROL_CHOICES = { event_types: EVENT_TYPES, fault_kinds: FAULT_KINDS } as const;

export const CONSOLE_PREFIX = '/_console';

export interface ConsolePort {
  /** serving: until the first login address is asked for, the console's paths are the mock's 404 */
  readonly enabled: boolean;
  /** Serves the console from now on and returns a login address with a new one-time code. */
  loginUrl(): string;
  /** Answers a request under CONSOLE_PREFIX (only called while enabled). */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

export const consolePorts = new WeakMap<Runtime, ConsolePort>();

export const isConsolePath = (url: string): boolean =>
  url === CONSOLE_PREFIX || url.startsWith(`${CONSOLE_PREFIX}/`) || url.startsWith(`${CONSOLE_PREFIX}?`);
