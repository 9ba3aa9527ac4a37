// `POST /_mock/console`: the address of the mock's web console with a new one-time login code
// (`cardctl mock console`); the console is served from then on.
import { fail, ok, type Reply } from '../envelope.js';
import { consolePorts } from '../console-port.js';
import type { ControlRequest } from './request.js';

export function consoleLogin({ rt }: ControlRequest): Reply {
  const port = consolePorts.get(rt);
  if (!port) return fail(404, 'This mock has no console (it was started from code without one).');
  return ok({ login_url: port.loginUrl(), expires_in_seconds: 600 });
}
