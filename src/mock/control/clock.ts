// The simulated clock: read it, move it forward (and run what fell due).
import { ok, validation, type Reply } from '../envelope.js';
import { isoTime } from '../clock.js';
import { MAX_ADVANCE_SECONDS, type ControlRequest } from './request.js';

/** Decided: the simulated clock never passes 9999-12-31T23:59:59Z (ULIDs and four-digit years end there). */
export const MAX_SIMULATED_MS = Date.UTC(9999, 11, 31, 23, 59, 59);

export const readClock = ({ rt }: ControlRequest): Reply => ok(rt.clock.view());

export async function advanceClock({ rt, body }: ControlRequest): Promise<Reply> {
  const v = body.seconds;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > MAX_ADVANCE_SECONDS) {
    return validation({
      seconds: [`The seconds must be a number from 0 to ${MAX_ADVANCE_SECONDS} (the clock only moves forward).`],
    });
  }
  // ids (ULIDs) and ISO dates need a four-digit year: the simulated now stops at the end of 9999
  const room = Math.floor((MAX_SIMULATED_MS - rt.now()) / 1000);
  if (rt.now() + Math.round(v * 1000) > MAX_SIMULATED_MS) {
    return validation({
      seconds: [`The clock cannot move past ${isoTime(MAX_SIMULATED_MS)}: at most ${Math.max(0, room)} more seconds.`],
    });
  }
  rt.clock.advance(v);
  rt.state.clock_offset_ms = rt.clock.offsetMs;
  rt.markDirty();
  // webhook attempts that fell due start in runDue; answer once they finished (bounded wait)
  await rt.deliveries.runAndSettle(() => rt.runDue());
  return ok(rt.clock.view());
}
