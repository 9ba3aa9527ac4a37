// The mock's web console (issue 37): a page served from the mock's own port under /_console,
// reading the request log and the state, and making the controls, through the control plane's
// own router (control.ts). startMock wires it (src/mock/console-port.ts); it serves once a login
// address was asked for (`mock start --console`, `cardctl mock console`).
//
// A request of the page: the Host checked (guard.ts), then the session cookie (login.ts), then
// for a change the Origin; then the asset, the live log (live.ts), a control call or a diagnosis.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CONSOLE_PREFIX, CONTROL_CHOICES, type ConsolePort } from '../mock/console-port.js';
import type { Runtime } from '../mock/runtime.js';
import { asset } from './assets.js';
import { callControl, changes, offered } from './control.js';
import { cookie, hostAllowed, refuse, sameOrigin, sendJson, sendText } from './guard.js';
import { serveLive } from './live.js';
import { ConsoleLogins } from './login.js';
import { diagnosePasted } from './paste.js';

/** Decided: a call of the page sends at most 4 MiB (a HAR file pasted in the diagnosis box). */
export const CONSOLE_BODY_LIMIT = 4 * 1024 * 1024;

export interface ConsoleOptions {
  controlToken: string;
  /** the address the mock listens on (`--host`) */
  listenHost: string;
  /** the mock's port and origin, once it listens */
  port(): number;
  origin(): string;
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= CONSOLE_BODY_LIMIT) chunks.push(c);
    });
    req.on('end', () => resolve(size > CONSOLE_BODY_LIMIT ? null : Buffer.concat(chunks)));
    req.on('error', () => resolve(null));
  });
}

class MockConsole implements ConsolePort {
  enabled = false;
  private readonly logins: ConsoleLogins;

  constructor(
    private readonly rt: Runtime,
    private readonly o: ConsoleOptions,
  ) {
    this.logins = new ConsoleLogins(rt.options.realNow, (secret) => rt.redactor.add([secret]));
  }

  /** the cookie's name carries the port: two mocks on one machine keep their sessions apart */
  private get cookieName(): string {
    return `cardctl_console_${this.o.port()}`;
  }

  loginUrl(): string {
    this.enabled = true;
    return `${this.o.origin()}${CONSOLE_PREFIX}/login?code=${this.logins.newCode()}`;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      await this.route(req, res);
    } catch (err) {
      process.stderr.write(`cardctl mock console: ${err instanceof Error ? err.message : String(err)}\n`);
      refuse(res, 500, 'The console could not answer this request.');
    }
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = (q < 0 ? url : url.slice(0, q)).slice(CONSOLE_PREFIX.length) || '/';
    const query = q < 0 ? '' : url.slice(q + 1);
    if (!hostAllowed(req.headers.host, this.o.listenHost, this.o.port())) {
      return refuse(
        res,
        403,
        `The console answers only under this mock's own address (${this.o.origin()}, or localhost with its port), not under the Host this request named.`,
      );
    }
    if (changes(method) && !sameOrigin(req)) {
      return refuse(res, 403, 'A change to the mock is accepted only from the console page itself (Origin checked).');
    }
    if (method === 'GET' && path.startsWith('/assets/')) {
      const file = asset(path.slice('/assets/'.length));
      return file ? sendText(res, 200, file.type, file.body) : refuse(res, 404, 'No such file of the console.');
    }
    if (path === '/login') return this.login(req, res, method, query);
    const session = cookie(req, this.cookieName);
    const signedIn = this.logins.valid(session);
    if (path === '/' && method === 'GET') return this.page(res, signedIn ? 'index.html' : 'login.html');
    if (!signedIn)
      return refuse(
        res,
        401,
        'Log in to the console first: use the address with a code that `cardctl mock console` prints.',
      );
    if (path === '/logout' && method === 'POST') {
      this.logins.end(session);
      return sendText(res, 303, 'text/plain; charset=utf-8', '', {
        Location: `${CONSOLE_PREFIX}/`,
        'Set-Cookie': `${this.cookieName}=; HttpOnly; SameSite=Strict; Path=${CONSOLE_PREFIX}; Max-Age=0`,
      });
    }
    if (path === '/api/live' && method === 'GET') return serveLive(this.rt.requestLog, req, res);
    if (path === '/api/choices' && method === 'GET') return sendJson(res, 200, { data: CONTROL_CHOICES });
    if (path.startsWith('/api/control/'))
      return this.control(req, res, method, path.slice('/api/control'.length), query);
    if (path === '/api/diagnose' && method === 'POST') {
      const body = await readBody(req);
      if (!body) return refuse(res, 413, `The pasted text is over ${CONSOLE_BODY_LIMIT} bytes.`);
      const answer = diagnosePasted(this.rt, body);
      return sendJson(res, answer.status, this.rt.redactor.redactValue(answer.body));
    }
    return refuse(res, 404, 'The console has no such page or call.');
  }

  private page(res: ServerResponse, name: string): void {
    const file = asset(name);
    if (!file) return refuse(res, 500, 'The console page is missing from this installation (dist/console/assets).');
    sendText(res, 200, file.type, file.body);
  }

  /** The code, from the address (GET, the link printed) or the login form (POST): a cookie, and the code out of the address bar. */
  private async login(req: IncomingMessage, res: ServerResponse, method: string, query: string): Promise<void> {
    let code: string | null = null;
    if (method === 'GET') code = new URLSearchParams(query).get('code');
    else if (method === 'POST') code = new URLSearchParams((await readBody(req))?.toString('utf8') ?? '').get('code');
    else return refuse(res, 404, 'The console has no such page or call.');
    const session = code ? this.logins.exchange(code.trim()) : null;
    if (!session) {
      const file = asset('login.html');
      return sendText(res, 401, 'text/html; charset=utf-8', file?.body ?? 'Log in with a new code.');
    }
    sendText(res, 303, 'text/plain; charset=utf-8', '', {
      Location: `${CONSOLE_PREFIX}/`,
      'Set-Cookie': `${this.cookieName}=${session}; HttpOnly; SameSite=Strict; Path=${CONSOLE_PREFIX}`,
    });
  }

  private async control(
    req: IncomingMessage,
    res: ServerResponse,
    method: string,
    sub: string,
    query: string,
  ): Promise<void> {
    if (!offered(method, sub)) return refuse(res, 404, 'The console does not offer this call.');
    const body = changes(method) ? await readBody(req) : Buffer.alloc(0);
    if (!body) return refuse(res, 413, `The call is over ${CONSOLE_BODY_LIMIT} bytes.`);
    if (body.length > 0 && !/^application\/json\b/i.test(String(req.headers['content-type'] ?? '')))
      return refuse(res, 415, 'A control call of the console sends JSON (Content-Type: application/json).');
    const reply = await callControl(this.rt, this.o.controlToken, { method, sub, query, body });
    sendJson(res, reply.status, reply.body);
  }
}

export function createConsole(rt: Runtime, options: ConsoleOptions): ConsolePort {
  return new MockConsole(rt, options);
}
