import { describe, expect, it } from 'vitest';
import { AccountMessages, SubscriptionType, type TAccountStatsResponse } from '@persona/contract';
import { billingCsv } from './billing-csv';
import { defaultBillingRange, rangeToQuery, validateBillingRange } from './billing-dates';
import { initialChoice, isRequestDisabled, requestLabel } from './plan-rules';

const { FREE, STARTER, PRO, ENTERPRISE, NONE } = SubscriptionType;

describe('plan rules', () => {
  it("labels 'Request Upgrade' at or above the current plan and 'Request Downgrade' below it (FREE < STARTER < PRO < ENTERPRISE)", () => {
    expect(requestLabel(STARTER, PRO)).toBe('Request Upgrade');
    expect(requestLabel(STARTER, ENTERPRISE)).toBe('Request Upgrade');
    expect(requestLabel(STARTER, STARTER)).toBe('Request Upgrade');
    expect(requestLabel(STARTER, FREE)).toBe('Request Downgrade');
    // PRO (code 2) is above STARTER (code 3): the order is not the codes' order.
    expect(requestLabel(PRO, STARTER)).toBe('Request Downgrade');
    expect(requestLabel(NONE, FREE)).toBe('Request Upgrade');
  });

  it('disables the request for the current plan, while it runs and while another request is pending', () => {
    expect(isRequestDisabled({ current: FREE, requested: null, chosen: FREE, isSubmitting: false })).toBe(true);
    expect(isRequestDisabled({ current: FREE, requested: null, chosen: PRO, isSubmitting: false })).toBe(false);
    expect(isRequestDisabled({ current: FREE, requested: null, chosen: PRO, isSubmitting: true })).toBe(true);
    expect(isRequestDisabled({ current: FREE, requested: PRO, chosen: PRO, isSubmitting: false })).toBe(true);
  });

  it('starts on the pending plan when there is one, else on the current plan', () => {
    expect(initialChoice(FREE, null)).toBe(FREE);
    expect(initialChoice(FREE, ENTERPRISE)).toBe(ENTERPRISE);
  });
});

describe('billing dates', () => {
  it('defaults to last month up to today', () => {
    expect(defaultBillingRange(new Date(2026, 10, 22, 15, 30))).toEqual({ start: '2026-10-22', end: '2026-11-22' });
    expect(defaultBillingRange(new Date(2026, 0, 15))).toEqual({ start: '2025-12-15', end: '2026-01-15' });
    // 31 March: a month earlier is the last day of February.
    expect(defaultBillingRange(new Date(2026, 2, 31))).toEqual({ start: '2026-02-28', end: '2026-03-31' });
  });

  it('refuses a start after the end, and dates after today', () => {
    const now = new Date(2026, 10, 22, 12);
    expect(validateBillingRange({ start: '2026-11-10', end: '2026-11-01' }, now)).toEqual({ start: AccountMessages.startAfterEnd });
    expect(validateBillingRange({ start: '2026-11-01', end: '2026-11-23' }, now)).toEqual({ end: AccountMessages.dateInFuture });
    expect(validateBillingRange({ start: '2026-12-01', end: '2026-11-22' }, now).start).toBe(AccountMessages.dateInFuture);
    expect(validateBillingRange({ start: '2026-11-22', end: '2026-11-22' }, now)).toEqual({});
    expect(validateBillingRange({ start: '', end: '2026-11-22' }, now).start).toBeDefined();
  });

  it('sends the start day from its first millisecond and the end day to its last', () => {
    const query = rangeToQuery({ start: '2026-11-01', end: '2026-11-22' });
    expect(query.startDate).toBe(new Date(2026, 10, 1).getTime());
    expect(query.endDate).toBe(new Date(2026, 10, 23).getTime() - 1);
  });
});

describe('billing CSV', () => {
  it('has the table header, one row per avatar and the Σ totals row, quoting what needs it', () => {
    const stats: TAccountStatsResponse = {
      status: 'OK',
      billingData: [
        { avatarName: 'Maya, the guide', avatarId: 7, totalCallDuration: 12.5, totalCallCount: 3 },
        { avatarName: '=HYPERLINK("x")', avatarId: 9, totalCallDuration: 1, totalCallCount: 1 },
      ],
      cummulativeData: { totalCallDuration: 13.5, totalCallCount: 4 },
    };
    expect(billingCsv(stats).split('\r\n')).toEqual([
      '#,Avatar Name,Avatar ID,Total Duration (minutes),Total Call Count',
      '1,"Maya, the guide",7,12.5,3',
      `2,"'=HYPERLINK(""x"")",9,1,1`,
      'Σ,Total,,13.5,4',
      '',
    ]);
  });
});
