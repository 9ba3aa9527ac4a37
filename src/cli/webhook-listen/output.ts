// What `webhooks listen` says: the banner once listening (stderr, and the {"listening"} item,
// printed with --json), one item per delivery (a line for people, or its NDJSON line), a hint on
// stderr the first time each kind of refusal shows up, and the count when it stops. The items are
// printed by src/output/stream.ts, the banner and the count are stderr. Never the secret.
import type { DeliveryLine, ListenReason } from './delivery.js';
import { MAX_BODY_BYTES } from './delivery.js';
import type { StreamItem } from '../../output/stream.js';
import { terminalSafeLine } from '../../terminal-text.js';

const scalarText = (v: unknown): string =>
  v === null || v === undefined ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v);
const deliveries = (n: number): string => `deliver${n === 1 ? 'y' : 'ies'}`;

/** One line for people: time, event type, delivery id, verdict, data, forward status. */
export function formatDeliveryLine(line: DeliveryLine): string {
  const parts = [
    line.received_at,
    line.type ?? line.event ?? '(no event header)',
    line.delivery_id ?? '(no delivery id)',
  ];
  if (line.valid) {
    parts.push('valid');
    for (const [k, v] of Object.entries(line.data ?? {})) parts.push(`${k}=${scalarText(v)}`);
  } else {
    parts.push(`INVALID (${line.reason})`);
  }
  if (line.forwarded_status !== undefined) {
    parts.push(
      line.forwarded_status === null
        ? `-> forward failed: ${line.forward_error ?? 'unreachable'}, answered ${line.status}`
        : `-> forwarded: ${line.forwarded_status}`,
    );
  } else {
    parts.push(`-> ${line.status}`);
  }
  // every part but the verdict is what the sender chose (headers, the payload): escaped (src/terminal-text.ts)
  return terminalSafeLine(parts.join('  '));
}

function reasonHint(reason: ListenReason, secretFrom: string): string {
  switch (reason) {
    case 'signature_mismatch':
      return `hint: signature_mismatch means the delivery was not signed with the secret from ${secretFrom}, or its body was changed on the way. Answered 400, so the sender retries.`;
    case 'malformed_header':
      return 'hint: malformed_header means X-Service-Signature is missing or not "t=<unix seconds>, v1=<hex>". Answered 400.';
    case 'timestamp_out_of_tolerance':
      return 'hint: timestamp_out_of_tolerance means the signature matches but t is too far from this clock: a replayed delivery or a wrong clock (raise --tolerance to accept it). Answered 400.';
    default:
      return `hint: the body is larger than ${MAX_BODY_BYTES} bytes; answered 413.`;
  }
}

/** Each delivery as an item of the output; the first refusal of each reason also gets its hint. */
export function deliveryItems(secretFrom: string): (line: DeliveryLine) => StreamItem {
  const hinted = new Set<ListenReason>();
  return (line) => {
    let notes: string[] | undefined;
    if (!line.valid && !hinted.has(line.reason)) {
      hinted.add(line.reason);
      notes = [reasonHint(line.reason, secretFrom)];
    }
    return { json: line, text: formatDeliveryLine(line) + '\n', notes };
  };
}

export interface Listening {
  url: string;
  endpointId: string | null;
  secretFrom: string;
  tolerance: number;
  forwardTarget?: URL;
  maxEvents?: number;
}

/** The banner on stderr, said as soon as it listens. */
export function listeningBanner(l: Listening): string {
  return (
    `Listening on ${l.url}; verifying with the webhook secret from ${l.secretFrom} (tolerance ${l.tolerance} s)` +
    (l.forwardTarget ? `; forwarding verified deliveries to ${l.forwardTarget.href}` : '') +
    (l.maxEvents !== undefined ? `; stopping after ${l.maxEvents} ${deliveries(l.maxEvents)}` : '; Ctrl-C to stop') +
    '.\n'
  );
}

/** The first item: with --json the {"listening"} line; for people the banner said it (nothing on stdout). */
export function listeningItem(l: Listening): StreamItem {
  return {
    json: { listening: l.url, endpoint_id: l.endpointId, forward_to: l.forwardTarget?.href ?? null },
    text: null,
  };
}

/** The count for stderr once stopped; with --json only when a delivery failed verification. */
export function stoppedNotes(json: boolean, handled: number, failed: number): string[] {
  return !json || failed > 0
    ? [`Stopped after ${handled} ${deliveries(handled)}${failed > 0 ? `, ${failed} failed verification` : ''}.`]
    : [];
}
