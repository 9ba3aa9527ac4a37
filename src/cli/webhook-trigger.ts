// `cardctl webhooks trigger TYPE`: asks a running mock to record an event of one of the event
// types (and so deliver it to the merchant's enabled endpoints), and says how many it goes to.
import { CardctlError, usageError } from '../errors.js';

export interface TriggerOptions {
  type: string;
  data?: string;
  /** --mode; default: the mode of the profile that found the mock (-p, CARDCTL_PROFILE), else test */
  mode?: 'test' | 'live';
  merchant?: string;
  controlUrl?: string;
  /** -p: the mock this profile (saved by `mock start --save-profiles`) points at */
  profile?: string;
  env?: NodeJS.ProcessEnv;
  /** `--dry-run`: the control call that would be made, thrown as a DryRunStop (nothing is recorded on the mock) */
  dryRun?: boolean;
}

export interface TriggerResult {
  event: Record<string, unknown>;
  /** enabled endpoints of the event's merchant, when the mock said; for the note */
  enabledEndpoints?: number;
}

export async function runTrigger(opts: TriggerOptions): Promise<TriggerResult> {
  const { EVENT_TYPES } = await import('../contract/resources.js');
  const types: readonly string[] = EVENT_TYPES;
  if (!types.includes(opts.type)) {
    const typed = opts.type.toLowerCase();
    const family = typed.split('.')[0] ?? '';
    const prefixed = types.filter((t) => typed.length > 0 && t.startsWith(typed));
    const near = prefixed.length > 0 ? prefixed : types.filter((t) => t.startsWith(family + '.'));
    throw new CardctlError(`unknown event type "${opts.type}".`, {
      kind: 'usage',
      code: 'unknown_event_type',
      hint: `${near.length > 0 ? `Did you mean ${near.join(', ')}? ` : ''}The event types are: ${types.join(', ')}.`,
    });
  }
  let data: unknown;
  if (opts.data !== undefined) {
    try {
      data = JSON.parse(opts.data);
    } catch {
      data = undefined;
    }
    if (!data || typeof data !== 'object' || Array.isArray(data)) {
      throw usageError(
        '--data must be a JSON object.',
        `For example --data '{"card_id":"01JD2QA1B2C3D4E5F6G7H8J9KM"}' (without --data the mock makes sample data).`,
      );
    }
  }
  const { resolveControl, callControl } = await import('./mock/control-client.js');
  const target = await resolveControl(
    { controlUrl: opts.controlUrl, profile: opts.profile, envProfile: true },
    opts.env ?? process.env,
  );
  // `-p mock-live` means live: the event is in the mode of the key the profile holds
  const mode = opts.mode ?? target.profile?.mode ?? 'test';
  const body = { type: opts.type, data, mode, merchant_id: opts.merchant };
  if (opts.dryRun) throw await dryRunOf(target, body);
  const event = (await callControl(target, 'POST', '/events', body)) as Record<string, unknown>;
  // The deliveries the mock queued for this event, one per enabled endpoint when it was recorded
  // (the log keeps them, even if a listener got it and removed its endpoint meanwhile).
  let enabledEndpoints: number | undefined;
  try {
    const deliveries = (await callControl(
      target,
      'GET',
      `/webhook-deliveries?event_id=${encodeURIComponent(String(event.id))}`,
    )) as Array<{ event_id?: string }>;
    enabledEndpoints = deliveries.filter((d) => d.event_id === event.id).length; // a mock without the filter sends all
  } catch {
    // only for the note
  }
  return { event, enabledEndpoints };
}

export function triggerNote(r: TriggerResult): string | undefined {
  if (r.enabledEndpoints === undefined) return undefined;
  if (r.enabledEndpoints === 0) {
    return `note: merchant ${String(r.event.merchant_id)} has no enabled webhook endpoint, so nothing is delivered: run \`cardctl webhooks listen --mock\` first.`;
  }
  return `Delivering to ${r.enabledEndpoints} enabled endpoint${r.enabledEndpoints === 1 ? '' : 's'} (\`cardctl mock webhook-deliveries\` shows the attempts).`;
}

/** What `--dry-run` shows: the control call, its token a placeholder (not signed: no canonical string). */
async function dryRunOf(target: { url: string }, body: unknown): Promise<Error> {
  const [{ controlRequest }, { DryRunStop }] = await Promise.all([
    import('./mock/control-client.js'),
    import('../client/dry-run.js'),
  ]);
  const r = controlRequest(target, '/events', body, undefined);
  return new DryRunStop({
    kind: 'request',
    request: {
      method: 'POST',
      url: r.url,
      headers: r.headers,
      body: r.body ?? null,
      body_bytes: Buffer.byteLength(r.body ?? ''),
      body_sha256: null,
      canonical: null,
      fresh_at_send: ['Authorization'],
    },
    money: null,
  });
}
