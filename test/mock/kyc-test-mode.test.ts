// A test-mode customer is approved at its submission, whatever the clock does in between: the
// submission and the verdict read the clock separately, and a millisecond could pass (a customer
// then read `pending`, and a card issue right after the create was refused kyc_not_approved).
import { describe, expect, it } from 'vitest';
import { settleCustomer } from '../../src/mock/kyc.js';

describe('test-mode verification', () => {
  it('is approved in the same settle even when the clock moves by a millisecond at each reading', () => {
    const c = {
      id: '01JD2QA1B2C3D4E5F6G7H8J9KM',
      merchant_id: 'M',
      kyc_mode: 'test',
      kyc_status: 'unsubmitted',
      kyc_submit_due: 0,
      kyc_verdict_due: null,
      kyc_submitted_at: null,
      kyc_resolved_at: null,
      kyc_failure_reason: null,
      fields: { last_name: 'Obi', id_type: 'bvn' },
    };
    let t = 1_000;
    const events: string[] = [];
    const rt = {
      now: () => t++,
      markDirty: () => {},
      events: { record: (_m: string, _mode: string, type: string) => void events.push(type) },
      plainState: { customers: { [c.id]: c } },
      state: { customers: { [c.id]: c } },
    };
    expect(settleCustomer(rt as never, c as never)).toBe(true);
    expect(c.kyc_status).toBe('approved');
    expect(events).toEqual(['customer.kyc.pending', 'customer.kyc.approved']);
  });
});
