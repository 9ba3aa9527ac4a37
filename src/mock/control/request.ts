// What every control call receives, and the small input readers the calls share: each returns
// the value or records a human message under its field.
import { fail, validation, type ErrorMap, type Reply } from '../envelope.js';
import type { Runtime } from '../runtime.js';

export type Body = Record<string, unknown>;
export interface ControlRequest {
  rt: Runtime;
  body: Body;
  query: URLSearchParams;
  params: string[];
}
export type ControlHandler = (r: ControlRequest) => Reply | Promise<Reply>;

/** Decided: the clock moves at most 20 years per call; a key expires at most that far ahead. */
export const MAX_ADVANCE_SECONDS = 20 * 365 * 24 * 3600;

export const notFoundThing = (what: string): Reply => fail(404, `${what} not found.`);

export class Input {
  readonly errors: ErrorMap = {};
  constructor(private readonly body: Body) {}

  add(field: string, message: string): void {
    (this.errors[field] ??= []).push(message);
  }

  has(field: string): boolean {
    return this.body[field] !== undefined && this.body[field] !== null;
  }

  oneOf<T extends string>(field: string, values: readonly T[], fallback?: T): T | undefined {
    const v = this.body[field];
    if (v === undefined || v === null) {
      if (fallback === undefined) this.add(field, `The ${field} is required: one of ${values.join(', ')}.`);
      return fallback;
    }
    const s = typeof v === 'number' ? String(v) : v;
    if (typeof s !== 'string' || !(values as readonly string[]).includes(s)) {
      this.add(field, `The ${field} must be one of ${values.join(', ')}.`);
      return undefined;
    }
    return s as T;
  }

  integer(field: string, min: number, max: number, fallback?: number): number | undefined {
    const v = this.body[field];
    if (v === undefined || v === null) {
      if (fallback === undefined) this.add(field, `The ${field} is required.`);
      return fallback;
    }
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max) {
      this.add(field, `The ${field} must be an integer from ${min} to ${max}.`);
      return undefined;
    }
    return v;
  }

  string(field: string, pattern: RegExp, hint: string, optional = false): string | undefined {
    const v = this.body[field];
    if (v === undefined || v === null) {
      if (!optional) this.add(field, `The ${field} is required.`);
      return undefined;
    }
    if (typeof v !== 'string' || !pattern.test(v)) {
      this.add(field, `The ${field} ${hint}`);
      return undefined;
    }
    return v;
  }

  stringList(field: string, check: (s: string) => boolean, hint: string): string[] | undefined {
    const v = this.body[field];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v) || v.length > 100 || !v.every((s) => typeof s === 'string' && check(s))) {
      this.add(field, `The ${field} ${hint}`);
      return undefined;
    }
    return v as string[];
  }

  fail(): Reply | null {
    return Object.keys(this.errors).length ? validation(this.errors) : null;
  }
}

/** The merchant a call names (default: the mock's default merchant), or the 422/404 to answer. */
export function merchantOf(rt: Runtime, body: Body): string | Reply {
  const id = body.merchant_id;
  if (id === undefined || id === null) return rt.state.default_merchant_id;
  if (typeof id !== 'string') return validation({ merchant_id: ['The merchant_id must be a string.'] });
  return Object.hasOwn(rt.state.merchants, id) ? id : notFoundThing('Merchant');
}
