import { deliveries, type Section, type Delivery } from '../context.js';
import { expect, keyValues } from '../runner.js';

export const section: Section = {
  title: 'Webhooks: sign, verify, and a live listener',
  async run(ctx) {
    const { r, ids, write } = ctx;
    const events = (await ctx.control('GET', '/events')) as Array<{ type: string; occurred_at: string; data: unknown }>;
    const issued = events.find((e) => e.type === 'card.issued');
    const event = issued
      ? { type: issued.type, occurred_at: issued.occurred_at, data: issued.data }
      : { type: 'card.issued', occurred_at: new Date().toISOString(), data: { card_id: ids.card } };
    write('event.json', JSON.stringify(event));
    write('event-reparsed.json', JSON.stringify(event, null, 2));
    r.say('event.json: the card.issued event of the first card, exactly as a webhook delivers it.');
    let header = '';
    await r.step({
      name: 'webhooks: sign',
      title: "Sign a webhook payload with the profile's webhook secret",
      argv: ['webhooks', 'sign', '--payload', 'event.json'],
      check: ({ stdout }) => {
        header = stdout.trim();
        expect(/^t=\d+, v1=[0-9a-f]{64}$/.test(header), 'expected a "t=..., v1=..." header');
        return 'X-Service-Signature value';
      },
    });
    await r.step({
      name: 'webhooks: verify',
      title: 'Verify it against the raw payload',
      argv: ['webhooks', 'verify', '--header', header, '--payload', 'event.json'],
    });
    r.say('event-reparsed.json: the same event after a body parser and JSON.stringify(event, null, 2).');
    await r.step({
      name: 'webhooks: verify tampered',
      title: 'Verify a re-serialized payload: refused, with the usual cause (exit 3)',
      argv: ['webhooks', 'verify', '--header', header, '--payload', 'event-reparsed.json'],
      expectExit: 3,
      check: ({ stderr }) => expect(/raw body/i.test(stderr), 'the hint should point at the raw body'),
    });
    await r.step({
      name: 'mock: webhook endpoint refused',
      title:
        'Endpoint URLs follow the spec: an address that is not globally reachable (here 10.0.0.1 as an IPv4-mapped IPv6 literal) is refused, naming its block (exit 2); loopback is the one exception',
      argv: ['mock', 'webhook-endpoints', 'add', 'https://[::ffff:10.0.0.1]/hooks'],
      expectExit: 2,
      check: ({ stderr }) =>
        expect(/::ffff:0:0\/96.*not globally reachable/.test(stderr), 'the refusal should name the block'),
    });
    let eventId = '';
    const listener = await r.start({
      name: 'webhooks: listen',
      title:
        'A local receiver, registered on the mock as a webhook endpoint; it verifies each delivery with the webhook secret',
      argv: ['webhooks', 'listen', '--mock', '--max-events', '1', '--json'],
      ready: ({ stdout }) => /^\{"listening"/m.test(stdout),
      readyNote: ({ stdout }) =>
        `listening on ${(JSON.parse(stdout.split('\n')[0]!) as { listening: string }).listening}`,
      check: async (run) => {
        const got = deliveries(run);
        expect(got.length === 1, `${got.length} deliveries printed, expected 1`);
        const d = got[0]!;
        expect(d.valid && d.reason === 'ok', `the delivery failed verification (${d.reason})`);
        expect(
          d.type === 'card.issued' && d.data?.card_id === ids.card,
          'expected the card.issued event of the first card',
        );
        const log = (await ctx.control('GET', '/webhook-deliveries')) as Delivery[];
        const sent = log.find((x) => x.id === d.delivery_id);
        expect(sent?.event_id === eventId, 'the mock has no delivery of the triggered event with that id');
        expect(
          sent.state === 'succeeded' && sent.attempts.at(-1)?.status === 200,
          `the mock's delivery is ${sent.state}, expected succeeded with 200`,
        );
        return `delivery ${d.delivery_id} verified; the mock logged it as answered 200`;
      },
    });
    await r.step({
      name: 'webhooks: trigger',
      title: 'Ask the mock to emit card.issued for the first card (delivered to every endpoint)',
      argv: ['webhooks', 'trigger', 'card.issued', '--data', JSON.stringify({ card_id: ids.card })],
      check: async (run) => {
        const e = keyValues(run.stdout);
        eventId = e.id ?? '';
        const recorded = ((await ctx.control('GET', '/events')) as Array<{ id: string; type: string }>).find(
          (x) => x.id === eventId,
        );
        expect(recorded?.type === 'card.issued', 'the mock should have recorded the card.issued event');
        return `event ${eventId}`;
      },
    });
    await r.wait(listener, {
      name: 'webhooks: listen, delivery',
      title: 'The receiver got one delivery, verified it, and stopped (--max-events 1)',
    });
    await r.step({
      name: 'mock: webhook-deliveries',
      title:
        "The mock's delivery log, narrowed to that event (--event, --endpoint, --state pending|succeeded|dead): each attempt with its status",
      argv: ['mock', 'webhook-deliveries', '--event', eventId, '--json'],
      maxLines: 24,
      check: ({ stdout }) => {
        const log = (JSON.parse(stdout) as { data: Delivery[] }).data; // the {data, meta} of every list
        expect(
          log.length >= 1 && log.every((d) => d.event_id === eventId),
          `expected only the deliveries of event ${eventId}`,
        );
        expect(
          log.some((d) => d.state === 'succeeded'),
          'expected the delivery the receiver verified, succeeded',
        );
        return `${log.length} deliver${log.length === 1 ? 'y' : 'ies'} of event ${eventId}, ${log.filter((d) => d.state === 'succeeded').length} succeeded`;
      },
    });

    // A profile picks its mock (and the trigger's mode): `-p test` for the listener, `-p live` for a live event
    let liveEventId = '';
    const profileListener = await r.start({
      name: 'webhooks: listen -p',
      title:
        "A receiver on the mock a profile points at (-p, or CARDCTL_PROFILE): the mock that signs with that profile's webhook secret, even while newer mocks run",
      argv: ['webhooks', 'listen', '--mock', '-p', 'test', '--max-events', '1', '--json'],
      ready: ({ stdout }) => /^\{"listening"/m.test(stdout),
      readyNote: ({ stdout }) =>
        `listening on ${(JSON.parse(stdout.split('\n')[0]!) as { listening: string }).listening}`,
      check: async (run) => {
        const got = deliveries(run);
        expect(got.length === 1 && got[0]!.valid, 'expected one verified delivery');
        const log = (await ctx.control('GET', '/webhook-deliveries')) as Delivery[];
        expect(
          log.find((x) => x.id === got[0]!.delivery_id)?.event_id === liveEventId,
          'the delivery should be of the live event',
        );
        return `live event ${liveEventId} delivered and verified`;
      },
    });
    await r.step({
      name: 'webhooks: trigger -p live',
      title: "Trigger with the live profile: the event is in the mode of the profile's key (live); --mode overrides",
      argv: ['webhooks', 'trigger', 'card.issued', '-p', 'live'],
      grep: '^(id|mode|type) ',
      check: async (run) => {
        const e = keyValues(run.stdout);
        liveEventId = e.id ?? '';
        expect(e.mode === 'live', `the event is in ${e.mode} mode, expected live`);
        const recorded = ((await ctx.control('GET', '/events')) as Array<{ id: string; mode: string }>).find(
          (x) => x.id === liveEventId,
        );
        expect(recorded?.mode === 'live', 'the mock should have recorded a live event');
        return `live event ${liveEventId}`;
      },
    });
    await r.wait(profileListener, {
      name: 'webhooks: listen -p, delivery',
      title: 'The receiver got the live event, verified it, and removed itself',
    });

    // A receiver to grade: `webhooks listen` verifies over the raw bytes, so it should pass every case.
    let receiverUrl = '';
    const receiver = await r.start({
      name: 'webhooks: receiver to grade',
      title: 'Start a receiver to grade (here `webhooks listen`, which verifies each delivery with the webhook secret)',
      argv: ['webhooks', 'listen', '--json'],
      maxLines: 2,
      ready: ({ stdout }) => /^\{"listening"/m.test(stdout),
      readyNote: ({ stdout }) =>
        `listening on ${(receiverUrl = (JSON.parse(stdout.split('\n')[0]!) as { listening: string }).listening)}`,
      check: (run) => {
        const got = deliveries(run);
        expect(
          got.filter((d) => !d.valid).length === 9,
          `the receiver refused ${got.filter((d) => !d.valid).length} deliveries, expected the 9 forgeries`,
        );
        return `${got.length} deliveries received, ${got.filter((d) => d.valid).length} verified`;
      },
    });
    await r.step({
      name: 'webhooks: test',
      title:
        'Grade it: every event type must be accepted, every forged, stale or re-serialized delivery refused (exit 0: all as expected)',
      argv: ['webhooks', 'test', receiverUrl],
      maxLines: 30,
      check: ({ stdout }) => {
        expect(/^✓ 24 cases: 23 passed, 0 failed, 1 info/m.test(stdout), 'expected 23 cases passed and 1 information');
        return '23 passed, the duplicate delivery reported as information';
      },
    });
    await r.stop(receiver, {
      name: 'webhooks: receiver stopped',
      title: 'Stop the receiver (Ctrl-C): it logged every delivery, and refused exactly the forgeries',
    });
  },
};
