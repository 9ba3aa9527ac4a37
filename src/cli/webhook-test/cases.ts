// The deliveries `cardctl webhooks test` sends, as data: pure (secret, clock and ids passed in),
// so what each case sends can be read and tested apart from the HTTP. Every body has exactly
// the spec's three keys and is serialized the way the mock serializes it; every header is the
// spec's four (Content-Type, X-Service-Event, X-Service-Delivery, X-Service-Signature).
import { EVENT_TYPES } from '../../contract/resources.js';
import { sampleEventData } from '../../contract/event-samples.js';
import { webhookSignature } from '../../signing/webhook.js';

/** accept: must answer 2xx; refuse: must answer anything else; info: reported, never graded. */
export type Expectation = 'accept' | 'refuse' | 'info';

export interface Delivery {
  body: Buffer;
  headers: Record<string, string>;
}

export interface WebhookCase {
  name: string;
  expect: Expectation;
  /** what a correct receiver does, for the report */
  why: string;
  /** sent in order, each signed when it is sent (Unix seconds); more than one only for the duplicate-delivery case */
  deliveries: Array<(now: number) => Delivery>;
}

export interface CaseInputs {
  secret: string;
  /** Unix seconds, for occurred_at (signatures use the time each delivery is sent) */
  now: number;
  /** a fresh ULID on each call */
  newId: () => string;
  /** a secret that is not the endpoint's (random) */
  otherSecret: string;
}

/** Seconds past the spec's 300 s tolerance that the stale and future cases use. */
export const SKEW_S = 301;

function eventBody(type: string, data: Record<string, unknown>, occurredAt: string): Buffer {
  // the mock's serialization: exactly these three keys, in this order, no whitespace
  return Buffer.from(JSON.stringify({ type, occurred_at: occurredAt, data }), 'utf8');
}

function delivery(type: string, body: Buffer, signature: string | null, id: string): Delivery {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'X-Service-Event': type,
    'X-Service-Delivery': id,
  };
  if (signature !== null) headers['X-Service-Signature'] = signature;
  return { body, headers };
}

/** Reorders an object's keys (reversed, at every depth): the same JSON value, other bytes. */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .reverse()
        .map(([k, v]) => [k, reordered(v)]),
    );
  }
  return value;
}

/** The first digit of a number in the body changed (1 -> 2, else -> 1): one byte, still valid JSON. */
function oneByteChanged(body: Buffer): Buffer {
  const text = body.toString('utf8');
  const at = text.search(/:\d/) + 1;
  if (at <= 0) throw new Error('the sample body has no number to change');
  const digit = text[at] === '1' ? '2' : '1';
  return Buffer.from(text.slice(0, at) + digit + text.slice(at + 1), 'utf8');
}

export function buildCases(input: CaseInputs): WebhookCase[] {
  const { secret, newId } = input;
  const occurredAt = new Date(input.now * 1000).toISOString();
  const sign = (body: Buffer, t: number, key = secret): string => webhookSignature(key, body, t);
  const valid = (body: Buffer, t: number): string => `t=${t}, v1=${sign(body, t)}`;
  const cases: WebhookCase[] = [];

  for (const type of EVENT_TYPES) {
    const body = eventBody(type, sampleEventData(type, newId), occurredAt);
    const id = newId();
    cases.push({
      name: `event ${type}`,
      expect: 'accept',
      why: 'a valid delivery of a known event type',
      deliveries: [(now) => delivery(type, body, valid(body, now), id)],
    });
  }

  // One sample for the header variants and the forgeries: a deposit (it carries an amount).
  const type = 'deposit.credited';
  const sample = (): Buffer => eventBody(type, sampleEventData(type, newId), occurredAt);
  const add = (
    name: string,
    expect: Expectation,
    why: string,
    make: (body: Buffer, now: number) => { body?: Buffer; signature: string | null },
  ): void => {
    const body = sample();
    const id = newId();
    cases.push({
      name,
      expect,
      why,
      deliveries: [
        (now) => {
          const made = make(body, now);
          return delivery(type, made.body ?? body, made.signature, id);
        },
      ],
    });
  };

  add('rotation: two v1, one valid', 'accept', 'valid when any v1 matches (secret rotation)', (body, now) => ({
    signature: `t=${now}, v1=${sign(body, now, input.otherSecret)}, v1=${sign(body, now)}`,
  }));
  add(
    'header: unknown items, extra spaces',
    'accept',
    'items other than t and v1 are ignored; spaces around items are trimmed',
    (body, now) => ({
      signature: `  t=${now} ,v0=${sign(body, now, input.otherSecret)},   v1=${sign(body, now)}  , scheme=hmac-sha256 `,
    }),
  );

  add('body changed by one byte', 'refuse', 'the signature covers the raw body bytes', (body, now) => ({
    body: oneByteChanged(body),
    signature: valid(body, now),
  }));
  add('signed with another secret', 'refuse', 'only the endpoint secret signs', (body, now) => ({
    signature: `t=${now}, v1=${sign(body, now, input.otherSecret)}`,
  }));
  add(`t ${SKEW_S} s in the past`, 'refuse', 'the timestamp tolerance is 300 s', (body, now) => ({
    signature: valid(body, now - SKEW_S),
  }));
  // One second more at sending: the receiver reads its clock a moment later, and a second
  // boundary crossed in transit must not bring t back within 300 s (the past case only grows).
  add(`t ${SKEW_S} s in the future`, 'refuse', 'the tolerance holds both ways (|now - t| <= 300 s)', (body, now) => ({
    signature: valid(body, now + SKEW_S + 1),
  }));
  add('no signature header', 'refuse', 'an unsigned delivery is not from the service', () => ({ signature: null }));
  add(
    'malformed header',
    'refuse',
    'items are separated by commas; a header without a numeric t is refused',
    (body, now) => ({
      signature: `t=${now}; v1=${sign(body, now)}`,
    }),
  );
  // Two re-serializations of the signed body: a receiver that verifies JSON.stringify(parsed)
  // gives back the compact bytes of the pretty one (and accepts it); one that sorts or keeps
  // keys its own way differs on the other.
  const parsed = (body: Buffer): unknown => JSON.parse(body.toString('utf8'));
  add(
    'body re-serialized: pretty-printed',
    'refuse',
    'verify the raw bytes, never a re-serialized body',
    (body, now) => ({
      body: Buffer.from(JSON.stringify(parsed(body), null, 2), 'utf8'),
      signature: valid(body, now),
    }),
  );
  add(
    'body re-serialized: keys reordered',
    'refuse',
    'verify the raw bytes, never a re-serialized body',
    (body, now) => ({
      body: Buffer.from(JSON.stringify(reordered(parsed(body))), 'utf8'),
      signature: valid(body, now),
    }),
  );
  add('uppercase hex', 'refuse', 'hex is compared as written (lowercase)', (body, now) => ({
    signature: `t=${now}, v1=${sign(body, now).toUpperCase()}`,
  }));

  // The same delivery twice (a retry): each attempt signed afresh, the delivery id kept.
  const body = eventBody('card.issued', sampleEventData('card.issued', newId), occurredAt);
  const id = newId();
  cases.push({
    name: 'same delivery id twice',
    expect: 'info',
    why: 'a retry keeps X-Service-Delivery: deduplicate on it (whether the receiver does cannot be seen from outside)',
    deliveries: [
      (now) => delivery('card.issued', body, valid(body, now), id),
      (now) => delivery('card.issued', body, valid(body, now), id),
    ],
  });
  return cases;
}
