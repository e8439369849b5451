import { describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { AccountMessages, SubscriptionType, type TAccountDetails, type TAccountStatsResponse, type TPlanRequest, type TSubscriptionType } from '@persona/contract';
import { json, type Handler, type RecordedRequest } from '../../../test/fetch-mock';
import { renderApp, userSession } from '../../../test/render-app';
import { defaultBillingRange, rangeToQuery, toDateInput } from '../lib/billing-dates';

// The chart library draws SVG with layout measurements jsdom does not have; the table carries the data.
vi.mock('../components/billing-chart', () => ({ BillingChart: () => <div data-testid="billing-chart" /> }));

function account(plan: TSubscriptionType, requested: TSubscriptionType | null = null): TAccountDetails {
  return {
    Id: 42,
    Name: 'Robin Tester',
    Email: 'robin@example.com',
    Status: 'ACTIVE',
    'Create Date': '2026-01-05T10:00:00.000Z',
    'Last Updated': '2026-01-05T10:00:00.000Z',
    'Subscribed Since': '2026-02-01T09:00:00.000Z',
    userType: 'USER',
    requestedSubType: requested,
    licenses: { webgl: { subscriptionType: plan } },
    maxAvatars: 3,
  };
}

const stats: TAccountStatsResponse = {
  status: 'OK',
  billingData: [
    { avatarName: 'Maya', avatarId: 7, totalCallDuration: 12.5, totalCallCount: 3 },
    { avatarName: 'Leo', avatarId: 9, totalCallDuration: 2.25, totalCallCount: 1 },
  ],
  cummulativeData: { totalCallDuration: 14.75, totalCallCount: 4 },
};

function planRequest(subType: TSubscriptionType): TPlanRequest {
  return {
    id: 5,
    userId: 42,
    userName: 'Robin Tester',
    email: 'robin@example.com',
    currentSubType: SubscriptionType.STARTER,
    requestedSubType: subType,
    status: 'PENDING',
    created: '2026-11-01T10:00:00.000Z',
    decided: null,
    decidedBy: null,
    reason: null,
  };
}

function api(overrides: Record<string, Handler> = {}, details: () => TAccountDetails = () => account(SubscriptionType.STARTER)) {
  return {
    'GET /api/account_info': () => json({ status: 'OK', accountDetails: details() }),
    'GET /api/account_stats': () => json(stats),
    ...overrides,
  };
}

async function openPlanDialog() {
  await userEvent.click(await screen.findByRole('button', { name: 'Change Subscription' }));
  return screen.findByRole('dialog', { name: 'Change Subscription' });
}

describe('/account: details and the plan dialog', () => {
  it("shows 'Account Details' with every field of the spec", async () => {
    renderApp({ route: '/account', session: userSession, api: api() });
    const panel = (await screen.findByRole('heading', { name: 'Account Details' })).closest('section')!;
    for (const label of ['Customer ID', 'Name', 'Email', 'Status', 'Created', 'Subscription plan', 'Subscribed since']) {
      expect(within(panel).getByText(label)).toBeInTheDocument();
    }
    expect(within(panel).getByText('42')).toBeInTheDocument();
    expect(within(panel).getByText('robin@example.com')).toBeInTheDocument();
    expect(within(panel).getByText('STARTER')).toBeInTheDocument();
    expect(within(panel).getByText('ACTIVE')).toBeInTheDocument();
  });

  it('lists FREE, STARTER, PRO and ENTERPRISE with their prices; the current plan cannot be requested', async () => {
    renderApp({ route: '/account', session: userSession, api: api() });
    const dialog = await openPlanDialog();
    for (const [plan, price] of [
      ['FREE', 'USD 0/month'],
      ['STARTER', 'USD 199/month'],
      ['PRO', 'USD 399/month'],
      ['ENTERPRISE', 'Flexible pricing'],
    ]) {
      const option = within(dialog).getByTestId(`plan-option-${plan}`);
      expect(option).toHaveTextContent(price!);
    }
    expect(within(dialog).getByRole('radio', { name: 'STARTER' })).toBeChecked();
    expect(within(dialog).getByTestId('plan-option-STARTER')).toHaveTextContent('Current');
    expect(within(dialog).getByRole('button', { name: 'Request Upgrade' })).toBeDisabled();
  });

  it('says what every plan unlocks, from the offers the server enforces', async () => {
    const offers = [
      { code: 1, name: 'FREE', priceUsdMonth: 0, maxAvatars: 1, imageAvatars: false },
      { code: 3, name: 'STARTER', priceUsdMonth: 199, maxAvatars: 3, imageAvatars: false },
      { code: 2, name: 'PRO', priceUsdMonth: 399, maxAvatars: 10, imageAvatars: true },
      { code: 4, name: 'ENTERPRISE', priceUsdMonth: null, maxAvatars: null, imageAvatars: true },
    ] as const;
    renderApp({ route: '/account', session: userSession, api: api({}, () => ({ ...account(SubscriptionType.STARTER), plans: [...offers] })) });
    const dialog = await openPlanDialog();
    const includes = (plan: string) => within(within(dialog).getByRole('list', { name: `${plan} includes` })).getAllByRole('listitem').map((li) => li.textContent);
    expect(includes('FREE')).toEqual(['Up to 1 avatar', 'No image or video avatars']);
    expect(includes('PRO')).toEqual(['Up to 10 avatars', 'Image and video avatars']);
    expect(includes('ENTERPRISE')).toEqual(['Unlimited avatars', 'Image and video avatars']);
  });

  it('withdraws a pending request, which unlocks the choice', async () => {
    let requested: TSubscriptionType | null = SubscriptionType.PRO;
    const { requests } = renderApp({
      route: '/account',
      session: userSession,
      api: api(
        {
          'POST /api/account_upgrade_withdraw': () => {
            requested = null;
            return json({ status: 'OK', request: { ...planRequest(SubscriptionType.PRO), status: 'WITHDRAWN' } });
          },
        },
        () => account(SubscriptionType.STARTER, requested),
      ),
    });
    const dialog = await openPlanDialog();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Withdraw request' }));
    expect(await screen.findByText(AccountMessages.planRequestWithdrawn)).toBeInTheDocument();
    await waitFor(() => expect(within(dialog).getByRole('radio', { name: 'FREE' })).toBeEnabled());
    expect(within(dialog).queryByText('REQUESTED')).not.toBeInTheDocument();
    expect(requests.filter((r) => r.path === '/api/account_upgrade_withdraw')).toHaveLength(1);
  });

  it("says 'Request Downgrade' below the current plan and 'Request Upgrade' at or above it", async () => {
    renderApp({ route: '/account', session: userSession, api: api() });
    const dialog = await openPlanDialog();
    await userEvent.click(within(dialog).getByRole('radio', { name: 'FREE' }));
    expect(within(dialog).getByRole('button', { name: 'Request Downgrade' })).toBeEnabled();
    await userEvent.click(within(dialog).getByRole('radio', { name: 'PRO' }));
    expect(within(dialog).getByRole('button', { name: 'Request Upgrade' })).toBeEnabled();
    await userEvent.click(within(dialog).getByRole('radio', { name: 'STARTER' }));
    expect(within(dialog).getByRole('button', { name: 'Request Upgrade' })).toBeDisabled();
  });

  it('shows a pending plan as REQUESTED and locks the choice', async () => {
    renderApp({ route: '/account', session: userSession, api: api({}, () => account(SubscriptionType.STARTER, SubscriptionType.PRO)) });
    expect(await screen.findByText('REQUESTED: PRO')).toBeInTheDocument();
    const dialog = await openPlanDialog();
    expect(within(dialog).getByTestId('plan-option-PRO')).toHaveTextContent('REQUESTED');
    for (const plan of ['FREE', 'STARTER', 'PRO', 'ENTERPRISE']) expect(within(dialog).getByRole('radio', { name: plan })).toBeDisabled();
    expect(within(dialog).getByRole('radio', { name: 'PRO' })).toBeChecked();
    expect(within(dialog).getByRole('button', { name: 'Request Upgrade' })).toBeDisabled();
  });

  it("sends {subType, dhType: 2}, disables the button while it runs, then shows 'Request Sent' for 3 s and reloads the details", async () => {
    let release: (response: Response) => void = () => {};
    let requested: TSubscriptionType | null = null;
    const { requests } = renderApp({
      route: '/account',
      session: userSession,
      api: api(
        {
          'POST /api/account_upgrade': (r: RecordedRequest) => {
            requested = (r.body as { subType: TSubscriptionType }).subType;
            return new Promise<Response>((resolve) => (release = resolve));
          },
        },
        () => account(SubscriptionType.STARTER, requested),
      ),
    });
    const dialog = await openPlanDialog();
    await userEvent.click(within(dialog).getByRole('radio', { name: 'PRO' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Request Upgrade' }));
    await waitFor(() => expect(within(dialog).getByRole('button', { name: /Request Upgrade/ })).toBeDisabled());
    expect(requests.find((r) => r.path === '/api/account_upgrade')?.body).toEqual({ subType: SubscriptionType.PRO, dhType: 2 });
    const infoCalls = requests.filter((r) => r.path === '/api/account_info').length;

    release(json({ status: 'OK', request: planRequest(SubscriptionType.PRO), errors: [] }));
    const sent = await screen.findByRole('dialog', { name: AccountMessages.planRequestSent });
    expect(sent).toHaveTextContent('PRO');
    expect(screen.queryByRole('dialog', { name: 'Change Subscription' })).not.toBeInTheDocument();
    await waitFor(() => expect(requests.filter((r) => r.path === '/api/account_info').length).toBeGreaterThan(infoCalls));
    expect(await screen.findByText('REQUESTED: PRO')).toBeInTheDocument();
    // Closes by itself after 3000 ms.
    await waitFor(() => expect(screen.queryByRole('dialog', { name: AccountMessages.planRequestSent })).not.toBeInTheDocument(), { timeout: 4500 });
  }, 20_000);

  it('closes the dialog and shows the failure text when the request fails', async () => {
    renderApp({
      route: '/account',
      session: userSession,
      api: api({ 'POST /api/account_upgrade': () => json({ status: 'FAIL', errors: [AccountMessages.requestPending] }, 409, 'Conflict') }),
    });
    const dialog = await openPlanDialog();
    await userEvent.click(within(dialog).getByRole('radio', { name: 'ENTERPRISE' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Request Upgrade' }));
    expect(await screen.findByText(AccountMessages.planRequestFailed)).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Change Subscription' })).not.toBeInTheDocument());
    expect(screen.queryByRole('dialog', { name: AccountMessages.planRequestSent })).not.toBeInTheDocument();
  });

  it('says when the account details cannot be loaded', async () => {
    renderApp({ route: '/account', session: userSession, api: api({ 'GET /api/account_info': () => json({ status: 'FAIL', errors: ['Nope.'] }, 400) }) });
    expect(await screen.findByText(AccountMessages.accountLoadFailed)).toBeInTheDocument();
  });
});

describe('/account: billing report', () => {
  it('asks for last month up to today by default, with inputs that cannot pass today', async () => {
    const { requests } = renderApp({ route: '/account', session: userSession, api: api() });
    await screen.findByRole('table', { name: 'Billing report' });
    const range = defaultBillingRange();
    const query = rangeToQuery(range);
    expect(requests.find((r) => r.path.startsWith('/api/account_stats'))?.path).toBe(`/api/account_stats?startDate=${query.startDate}&endDate=${query.endDate}`);
    expect(screen.getByLabelText('Start date')).toHaveValue(range.start);
    expect(screen.getByLabelText('End date')).toHaveValue(range.end);
    expect(screen.getByLabelText('End date')).toHaveAttribute('max', toDateInput(new Date()));
    expect(screen.getByLabelText('Start date')).toHaveAttribute('max', toDateInput(new Date()));
  });

  it('shows #, Avatar Name, Avatar ID, Total Duration (minutes), Total Call Count and the Σ totals row', async () => {
    renderApp({ route: '/account', session: userSession, api: api() });
    const table = await screen.findByRole('table', { name: 'Billing report' });
    expect(within(table).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['#', 'Avatar Name', 'Avatar ID', 'Total Duration (minutes)', 'Total Call Count']);
    const rows = within(table).getAllByRole('row');
    expect(rows[1]).toHaveTextContent(/^1Maya712\.503$/);
    expect(rows[3]).toHaveTextContent(/^ΣTotal14\.754$/);
    expect(screen.getByTestId('billing-chart')).toBeInTheDocument();
  });

  it("refuses a start date after the end date with 'Start date cannot be greater than end date.'", async () => {
    const { requests } = renderApp({ route: '/account', session: userSession, api: api() });
    await screen.findByRole('table', { name: 'Billing report' });
    const end = (screen.getByLabelText('End date') as HTMLInputElement).value;
    const calls = requests.filter((r) => r.path.startsWith('/api/account_stats')).length;
    await userEvent.clear(screen.getByLabelText('Start date'));
    await userEvent.type(screen.getByLabelText('Start date'), end);
    await userEvent.clear(screen.getByLabelText('End date'));
    await userEvent.type(screen.getByLabelText('End date'), '2020-01-01');
    expect(await screen.findByText(AccountMessages.startAfterEnd)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Search' })).toBeDisabled();
    expect(requests.filter((r) => r.path.startsWith('/api/account_stats')).length).toBe(calls);
  });

  it('refuses a date after today', async () => {
    renderApp({ route: '/account', session: userSession, api: api() });
    await screen.findByRole('table', { name: 'Billing report' });
    const tomorrow = new Date();
    tomorrow.setDate(tomorrow.getDate() + 1);
    await userEvent.clear(screen.getByLabelText('End date'));
    await userEvent.type(screen.getByLabelText('End date'), toDateInput(tomorrow));
    expect(await screen.findByText(AccountMessages.dateInFuture)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Search' })).toBeDisabled();
  });

  it('searches the chosen range', async () => {
    const { requests } = renderApp({ route: '/account', session: userSession, api: api() });
    await screen.findByRole('table', { name: 'Billing report' });
    await userEvent.clear(screen.getByLabelText('Start date'));
    await userEvent.type(screen.getByLabelText('Start date'), '2026-01-01');
    await userEvent.click(screen.getByRole('button', { name: 'Search' }));
    const start = new Date(2026, 0, 1).getTime();
    await waitFor(() => expect(requests.some((r) => r.path.startsWith(`/api/account_stats?startDate=${start}&`))).toBe(true));
  });

  it("says 'Failed to fetch billing data.' when the report cannot be loaded", async () => {
    renderApp({ route: '/account', session: userSession, api: api({ 'GET /api/account_stats': () => json({ status: 'FAIL', errors: ['startDate: bad'] }, 400) }) });
    expect(await screen.findByText(AccountMessages.billingLoadFailed)).toBeInTheDocument();
  });

  it('shows an empty period and downloads the table as CSV', async () => {
    const createObjectURL = vi.fn((_blob: Blob) => 'blob:csv');
    Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
    renderApp({ route: '/account', session: userSession, api: api() });
    await screen.findByRole('table', { name: 'Billing report' });
    await userEvent.click(screen.getByRole('button', { name: 'Download CSV' }));
    expect(click).toHaveBeenCalled();
    const csv = await new Promise<string>((resolve) => {
      const reader = new FileReader();
      reader.onload = () => resolve(String(reader.result));
      reader.readAsText(createObjectURL.mock.calls[0]![0]);
    });
    expect(csv).toContain('#,Avatar Name,Avatar ID,Total Duration (minutes),Total Call Count');
    expect(csv).toContain('Σ,Total,,14.75,4');
  });

  it('says so when nothing was used in the period', async () => {
    renderApp({
      route: '/account',
      session: userSession,
      api: api({ 'GET /api/account_stats': () => json({ status: 'OK', billingData: [], cummulativeData: { totalCallDuration: 0, totalCallCount: 0 } }) }),
    });
    expect(await screen.findByText('No calls in this period.')).toBeInTheDocument();
    expect(screen.queryByTestId('billing-chart')).not.toBeInTheDocument();
  });
});
