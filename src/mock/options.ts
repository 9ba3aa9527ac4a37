// The checks on startMock's options, shared by the library and `cardctl mock start` (whose
// launcher checks the same rules for its flags): a wrong option is a thrown Error with a message
// saying what is expected, never a mock that starts and misbehaves (429 with `Retry-After: NaN`).
import { checkEndpointUrl } from './endpoint-url.js';
import { MODES } from './state.js';
import { MAX_REQUEST_LOG_SIZE } from './request-log.js';

/** The problem with the options, or null. `kind` says which Error to throw: TypeError for a wrong type, RangeError for a wrong value. */
export function startOptionsProblem(options: unknown): { kind: 'type' | 'range'; message: string } | null {
  if (options === undefined) return null;
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    return { kind: 'type', message: 'startMock options must be an object.' };
  const o = options as Record<string, unknown>;
  const type = (message: string) => ({ kind: 'type' as const, message: `startMock: ${message}` });
  const range = (message: string) => ({ kind: 'range' as const, message: `startMock: ${message}` });
  const given = (name: string) => o[name] !== undefined;
  const shown = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : String(v));

  if (given('host') && (typeof o.host !== 'string' || o.host.trim() === ''))
    return type(`host must be a non-empty string such as "127.0.0.1", not ${shown(o.host)}.`);
  if (given('port')) {
    if (typeof o.port !== 'number')
      return type(`port must be a number from 0 to 65535 (0 picks a free port), not ${shown(o.port)}.`);
    if (!Number.isInteger(o.port) || o.port < 0 || o.port > 65535)
      return range(`port must be a whole number from 0 to 65535 (0 picks a free port), not ${o.port}.`);
  }
  if (given('seed')) {
    if (typeof o.seed !== 'number') return type(`seed must be a number, not ${shown(o.seed)}.`);
    if (!Number.isFinite(o.seed)) return range(`seed must be a finite number, not ${o.seed}.`);
  }
  if (given('stateFile') && (typeof o.stateFile !== 'string' || o.stateFile === ''))
    return type(`stateFile must be a non-empty file path, not ${shown(o.stateFile)}.`);
  if (given('recover') && typeof o.recover !== 'boolean')
    return type(`recover must be true or false, not ${shown(o.recover)}.`);
  if (given('snapshot') && (typeof o.snapshot !== 'string' || o.snapshot === ''))
    return type(`snapshot must be the path of a snapshot file, not ${shown(o.snapshot)}.`);
  if (
    given('compactAfterBytes') &&
    (typeof o.compactAfterBytes !== 'number' || !Number.isInteger(o.compactAfterBytes) || o.compactAfterBytes < 0)
  ) {
    return type(`compactAfterBytes must be a whole number of bytes, not ${shown(o.compactAfterBytes)}.`);
  }
  if (given('rateLimit')) {
    if (typeof o.rateLimit !== 'number')
      return type(`rateLimit must be a number of requests per minute, not ${shown(o.rateLimit)}.`);
    if (!Number.isInteger(o.rateLimit) || o.rateLimit < 1)
      return range(`rateLimit must be a whole number of requests per minute, at least 1, not ${o.rateLimit}.`);
  }
  if (given('requestLog')) {
    if (typeof o.requestLog !== 'number')
      return type(`requestLog must be a number of requests to keep (0 turns the log off), not ${shown(o.requestLog)}.`);
    if (!Number.isInteger(o.requestLog) || o.requestLog < 0 || o.requestLog > MAX_REQUEST_LOG_SIZE) {
      return range(
        `requestLog must be a whole number from 0 (no log) to ${MAX_REQUEST_LOG_SIZE}, not ${o.requestLog}.`,
      );
    }
  }
  if (given('webhookUrls')) {
    if (!Array.isArray(o.webhookUrls)) return type('webhookUrls must be an array of URLs.');
    for (const url of o.webhookUrls as unknown[]) {
      if (typeof url !== 'string') return type(`webhookUrls must hold URL strings, not ${shown(url)}.`);
      const checked = checkEndpointUrl(url);
      if (!checked.ok) return range(`webhookUrls: ${JSON.stringify(url)}: ${checked.problem}`);
    }
  }
  if (given('lookup') && typeof o.lookup !== 'function')
    return type(
      'lookup must be a function resolving a host name to its addresses, like dns.promises.lookup(host, { all: true }).',
    );
  if (given('now') && typeof o.now !== 'function')
    return type('now must be a function returning the real time in ms (like Date.now).');
  if (given('providerLatencyMs')) {
    if (typeof o.providerLatencyMs !== 'number')
      return type(`providerLatencyMs must be a number of ms, not ${shown(o.providerLatencyMs)}.`);
    if (!Number.isFinite(o.providerLatencyMs) || o.providerLatencyMs < 0)
      return range(`providerLatencyMs must be a finite number of ms, at least 0, not ${o.providerLatencyMs}.`);
  }
  for (const name of ['webhookConnectTimeoutMs', 'webhookTimeoutMs']) {
    if (!given(name)) continue;
    const v = o[name];
    if (typeof v !== 'number') return type(`${name} must be a number of ms, not ${shown(v)}.`);
    if (!Number.isFinite(v) || v <= 0) return range(`${name} must be a finite number of ms, greater than 0, not ${v}.`);
  }
  if (given('keys')) {
    if (!Array.isArray(o.keys)) return type('keys must be an array of {keyId, secret, mode} objects.');
    for (const k of o.keys as unknown[]) {
      const key = (typeof k === 'object' && k !== null ? k : {}) as Record<string, unknown>;
      if (typeof key.keyId !== 'string' || key.keyId === '' || typeof key.secret !== 'string' || key.secret === '') {
        return type('each of keys needs a non-empty keyId and secret (strings).');
      }
      if (!(MODES as readonly unknown[]).includes(key.mode))
        return range(`keys: ${key.keyId}: mode must be one of ${MODES.join(', ')}, not ${shown(key.mode)}.`);
    }
  }
  return null;
}

/** Throws a TypeError or RangeError saying what is expected, when an option is wrong. */
export function checkStartOptions(options: unknown): void {
  const problem = startOptionsProblem(options);
  if (problem) throw problem.kind === 'type' ? new TypeError(problem.message) : new RangeError(problem.message);
}
