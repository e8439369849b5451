import type { ReactNode } from 'react';
import { beforeEach, describe, expect, it } from 'vitest';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { FormProvider, useForm } from 'react-hook-form';
import { MemoryRouter } from 'react-router';
import { json, mockFetch } from '../../../test/fetch-mock';
import { authStore } from '../../../lib/auth-store';
import { setPublicConfig } from '../../../lib/config';
import { FunctionsSubTab } from '../components/editor/brain/functions-subtab';
import { KnowledgeSubTab } from '../components/editor/brain/knowledge-subtab';
import { applyLinkValues, LinkMessages, linkValuesOf, type LinkValues } from '../lib/brain-links';

beforeEach(() => {
  setPublicConfig({ allowRegistration: false, appKey: 'app-key', companyName: 'Acme', docsUrl: '/react/docs', productName: 'Persona Studio' });
  authStore.setSession({ token: 'tok', expiryDate: new Date(Date.now() + 3_600_000).toISOString(), userName: 'U', userType: 'USER', adminProxy: false }, { isPersistent: false });
});

type Values = LinkValues & { nlpEngine: number };
let current: () => Values = () => ({ collection_ids: [], functions: [], nlpEngine: 0 });

function Harness({ values, children }: { values: Values; children: ReactNode }) {
  const form = useForm<Values>({ defaultValues: values });
  current = () => form.getValues();
  return <FormProvider {...form}>{children}</FormProvider>;
}

const collection = (id: number, name: string, item_count = 2) => ({ id, name, item_count, created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' });
const fn = (id: number, name: string, approvalStatus: number) => ({
  id,
  name,
  code: '',
  language: 'python',
  template: 'weather',
  approvalStatus,
  rejectionReason: null,
  version: 1,
  createDate: '2026-01-01T00:00:00Z',
  lastUpdateDate: null,
  lastAdminUpdateDate: null,
});

function renderTab(node: ReactNode, values: Values) {
  const fetch = mockFetch({
    'GET /api/token/jwt': () => json({ status: 'OK', jwtToken: 'kb.jwt.token', expiresAt: new Date(Date.now() + 600_000).toISOString() }),
    'GET /knowledge_collection': () => json({ status: 'OK', data: [collection(1, 'Product manuals', 12), collection(2, 'Visitor FAQ', 1), collection(3, 'Prices')] }),
    'GET /api/list_functions': () => json({ status: 'OK', functions: [fn(10, 'get_weather', 1), fn(11, 'book_room', 0), fn(12, 'get_time', 1), fn(13, 'rejected_one', 2)] }),
  });
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const { unmount } = render(
    <QueryClientProvider client={client}>
      <MemoryRouter>
        <Harness values={values}>{node}</Harness>
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return { ...fetch, unmount };
}

describe('Knowledge Base sub-tab', () => {
  it('is disabled with the reason for engines other than LLM and the realtime engine', async () => {
    renderTab(<KnowledgeSubTab />, { collection_ids: [1], functions: [], nlpEngine: 1 });
    expect(screen.getByText(LinkMessages.knowledgeDisabled)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Add collections' })).toBeDisabled();
    expect(await screen.findByText('Product manuals')).toBeInTheDocument();
  });

  it('lists linked collections, links more from the Collection List (own only, with the knowledge token) and removes', async () => {
    const { requests } = renderTab(<KnowledgeSubTab />, { collection_ids: [2, 99], functions: [], nlpEngine: 10 });
    expect(screen.queryByText(LinkMessages.knowledgeDisabled)).toBeNull();
    expect(await screen.findByText('Visitor FAQ')).toBeInTheDocument();
    expect(screen.getByText('Collection #99')).toBeInTheDocument();
    expect(screen.getByText('Not found: it may have been deleted.')).toBeInTheDocument();
    expect(requests.find((r) => r.path === '/knowledge_collection')?.headers.authorization).toBe('Bearer kb.jwt.token');

    await userEvent.click(screen.getByRole('button', { name: 'Add collections' }));
    const dialog = await screen.findByRole('dialog', { name: 'Collection List' });
    expect(within(dialog).queryByText('Visitor FAQ')).toBeNull();
    expect(within(dialog).getByRole('button', { name: 'Link selected' })).toBeDisabled();
    await userEvent.click(within(dialog).getByRole('checkbox', { name: 'Product manuals' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Link selected' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(current().collection_ids).toEqual([2, 99, 1]);
    expect(screen.getByText('Product manuals')).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Remove Collection #99' }));
    expect(current().collection_ids).toEqual([2, 1]);
  });
});

describe('Functions sub-tab', () => {
  it('needs LLM or the realtime engine and Realtime on, and says which is missing', () => {
    const { unmount } = renderTab(<FunctionsSubTab isRealtime />, { collection_ids: [], functions: [], nlpEngine: 1 });
    expect(screen.getByText(LinkMessages.functionsDisabledEngine)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Add functions' })).toBeDisabled();
    unmount();
    renderTab(<FunctionsSubTab isRealtime={false} />, { collection_ids: [], functions: [], nlpEngine: 10 });
    expect(screen.getByText(LinkMessages.functionsDisabledRealtime)).toBeInTheDocument();
  });

  it('offers only approved functions, marks newly linked ones pending until saved', async () => {
    renderTab(<FunctionsSubTab isRealtime />, { collection_ids: [], functions: [], nlpEngine: 9 });
    expect(screen.getByText('No functions linked.')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Add functions' }));
    const dialog = await screen.findByRole('dialog', { name: 'Function List' });
    await within(dialog).findByText('get_weather');
    expect(within(dialog).getByText('get_time')).toBeInTheDocument();
    expect(within(dialog).queryByText('book_room')).toBeNull();
    expect(within(dialog).queryByText('rejected_one')).toBeNull();
    await userEvent.click(within(dialog).getByRole('checkbox', { name: 'get_weather' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Link selected' }));
    const row = (await screen.findByText('get_weather')).closest('li')!;
    expect(within(row).getByText(LinkMessages.pending)).toBeInTheDocument();
    expect(current().functions).toEqual([10]);
  });
});

describe('link values', () => {
  it('reads and writes customData.collection_ids and functions, keeping the rest of customData', () => {
    const values = linkValuesOf({ functions: [3, 3, 4], customData: { collection_ids: [7], words_per_sec: 3 } as never });
    expect(values).toEqual({ collection_ids: [7], functions: [3, 4] });
    expect(applyLinkValues({ customData: { words_per_sec: 3, collection_ids: [7] }, name: 'x' }, { collection_ids: [8], functions: [5] })).toEqual({
      name: 'x',
      functions: [5],
      customData: { words_per_sec: 3, collection_ids: [8] },
    });
  });
});
