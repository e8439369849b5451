import { describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { FunctionMessages, type TFunction, type TFunctionTemplate } from '@persona/contract';
import { json, type RecordedRequest } from '../../../test/fetch-mock';
import { adminSession, renderApp, userSession } from '../../../test/render-app';

/** Pages are loaded lazily: the first wait can take a while on a busy machine. */
const FIRST_LOAD = { timeout: 10_000 };
// These walk through whole pages with many steps: give them room when every project runs at once.
vi.setConfig({ testTimeout: 60_000 });

// CodeMirror needs layout that jsdom does not have: a textarea stands in for the code editor.
vi.mock('../../../components/python-editor', () => ({
  PythonEditor: (props: { value: string; onChange?: (v: string) => void; label: string; readOnly?: boolean }) => (
    <textarea aria-label={props.label} value={props.value} readOnly={props.readOnly} onChange={(e) => props.onChange?.(e.target.value)} />
  ),
}));

const templates: TFunctionTemplate[] = [
  { id: 'empty', title: 'Empty function canvas', description: 'Blank.', name: 'my_function', code: 'def my_function(text: str) -> str:\n    return text\n' },
  { id: 'example', title: 'Example template', description: 'Bill.', name: 'split_bill', code: 'def split_bill(total: float) -> dict:\n    return {}\n' },
];

const approved: TFunction = {
  id: 7,
  name: 'get_weather',
  code: 'def get_weather(city: str):\n    return city\n',
  language: 'python',
  template: 'weather',
  approvalStatus: 1,
  rejectionReason: null,
  version: 2,
  createDate: '2026-05-01T10:00:00.000Z',
  lastUpdateDate: null,
  lastAdminUpdateDate: '2026-05-02T10:00:00.000Z',
};

function api(list: TFunction[] = [approved], onMutate?: (request: RecordedRequest) => Response) {
  return {
    'GET /api/list_functions': () => json({ status: 'OK', functions: list }),
    'GET /api/function_templates': () => json({ status: 'OK', templates }),
    'POST /api/functions': (request: RecordedRequest) =>
      onMutate?.(request) ?? json({ status: 'OK', results: [{ action: 'new', id: 8, status: 'OK', errors: [], function: { ...approved, id: 8 } }] }),
  };
}

const editor = () => screen.getByRole('region', { name: /Create a function|New function|get_weather/ });

describe('/functions', () => {
  it('lists functions with the three dates (placeholder when missing) and the Approval Status chip', async () => {
    renderApp({ route: '/functions', session: userSession, api: api() });
    const card = (await screen.findByRole('heading', { name: 'get_weather' }, FIRST_LOAD)).closest('li')!;
    expect(within(card).getByText('Create Date:')).toBeInTheDocument();
    expect(within(card).getByText('Last Update Date:')).toBeInTheDocument();
    expect(within(card).getByText('Not yet')).toBeInTheDocument();
    expect(within(card).getByText('Last Admin Update Date:')).toBeInTheDocument();
    expect(within(card).getByText('Approved')).toBeInTheDocument();
    // The info panel explains the page until a field is used.
    expect(within(screen.getByRole('complementary', { name: 'Field help' })).getByRole('heading', { name: 'Functions' })).toBeInTheDocument();
  });

  it('asks for a template first, then File Name and Code; Choose Another Template only for a new item', async () => {
    const { requests } = renderApp({ route: '/functions', session: userSession, api: api() });
    await userEvent.click(await screen.findByRole('button', { name: 'Use Template' }, FIRST_LOAD));
    expect(screen.getByText(FunctionMessages.templateRequired)).toBeInTheDocument();

    await userEvent.click(screen.getByRole('radio', { name: /Example template/ }));
    await userEvent.click(screen.getByRole('button', { name: 'Use Template' }));
    expect(screen.getByLabelText('File Name')).toHaveValue('split_bill');
    expect(screen.getByLabelText('Code')).toHaveValue(templates[1]!.code);
    expect(screen.getByRole('button', { name: 'Choose Another Template' })).toBeInTheDocument();

    await userEvent.clear(screen.getByLabelText('File Name'));
    await userEvent.clear(screen.getByLabelText('Code'));
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    expect(await screen.findByText(FunctionMessages.nameRequired, undefined, FIRST_LOAD)).toBeInTheDocument();
    expect(screen.getByText(FunctionMessages.codeRequired)).toBeInTheDocument();
    expect(requests.some((r) => r.method === 'POST')).toBe(false);

    await userEvent.type(screen.getByLabelText('File Name'), 'tip');
    await userEvent.type(screen.getByLabelText('Code'), 'def tip(): return 1');
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(requests.find((r) => r.method === 'POST')?.body).toEqual({
      functions: [{ action: 'new', name: 'tip', code: 'def tip(): return 1', language: 'python', template: 'example' }],
    }));
    expect(await screen.findByText(FunctionMessages.created, undefined, FIRST_LOAD)).toBeInTheDocument();
    // After saving, the selection resets: back to the template chooser.
    expect(await screen.findByRole('button', { name: 'Use Template' }, FIRST_LOAD)).toBeInTheDocument();
  });

  it('edits a function without Choose Another Template, and shows a syntax error on the code', async () => {
    renderApp({
      route: '/functions',
      session: userSession,
      api: api([approved], () => json({ status: 'FAIL', errors: ['Syntax error on line 2, column 5: unexpected "return"'], results: [] }, 400)),
    });
    await userEvent.click(await screen.findByRole('button', { name: 'Edit get_weather' }, FIRST_LOAD));
    expect(within(editor()).getByRole('heading', { name: 'get_weather' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Choose Another Template' })).not.toBeInTheDocument();
    expect(screen.getByText(/Saving changed code sends it back to Pending/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Syntax error on line 2, column 5: unexpected "return"', undefined, FIRST_LOAD)).toBeInTheDocument();
    expect(await screen.findByText(FunctionMessages.updateFailed, undefined, FIRST_LOAD)).toBeInTheDocument();
  });

  it('warns that deleting removes the function from linked avatars', async () => {
    const { requests } = renderApp({
      route: '/functions',
      session: userSession,
      api: api([approved], () => json({ status: 'OK', results: [{ action: 'delete', id: 7, status: 'OK', errors: [], unlinkedAvatars: 1 }] })),
    });
    await userEvent.click(await screen.findByRole('button', { name: 'Delete get_weather' }, FIRST_LOAD));
    const dialog = screen.getByRole('dialog');
    expect(dialog).toHaveTextContent(FunctionMessages.deleteConfirm('get_weather'));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText(FunctionMessages.deleted, undefined, FIRST_LOAD)).toBeInTheDocument();
    expect(requests.find((r) => r.method === 'POST')?.body).toEqual({ functions: [{ action: 'delete', id: 7 }] });
  });

  it('shows the load failure text', async () => {
    renderApp({
      route: '/functions',
      session: userSession,
      api: { ...api(), 'GET /api/list_functions': () => json({ status: 'FAIL', errors: ['Nope'] }, 400) },
    });
    expect(await screen.findByText(FunctionMessages.loadFailed('functions'), undefined, FIRST_LOAD)).toBeInTheDocument();
  });
});

describe('/functionsreview (admin)', () => {
  it('shows pending functions with their code; approve and reject (reason required)', async () => {
    const pending = { ...approved, approvalStatus: 0, userId: 1001, ownerName: 'Grace Hopper', ownerEmail: 'grace@example.com', reviewedBy: null };
    const { requests } = renderApp({
      route: '/functionsreview',
      session: adminSession,
      api: {
        'GET /api/admin/functions': () => json({ status: 'OK', functions: [pending] }),
        'POST /api/admin/functions/review': (r) => json({ status: 'OK', function: { ...pending, approvalStatus: (r.body as { decision: string }).decision === 'approve' ? 1 : 2 } }),
      },
    });
    const item = await screen.findByRole('listitem', { name: 'Function get_weather' }, FIRST_LOAD);
    expect(within(item).getByText(/Grace Hopper · grace@example.com/)).toBeInTheDocument();
    expect(within(item).getByLabelText('Code of get_weather')).toHaveValue(approved.code);
    expect(requests.find((r) => r.path.startsWith('/api/admin/functions'))?.path).toBe('/api/admin/functions?status=0');

    await userEvent.click(within(item).getByRole('button', { name: 'Reject' }));
    const dialog = screen.getByRole('dialog');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Reject' }));
    expect(within(dialog).getByText(FunctionMessages.reasonRequired)).toBeInTheDocument();
    await userEvent.type(within(dialog).getByLabelText('Reason'), 'Reads files.');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Reject' }));
    await waitFor(() =>
      expect(requests.find((r) => r.path === '/api/admin/functions/review')?.body).toEqual({ id: 7, version: 2, decision: 'reject', reason: 'Reads files.' }),
    );

    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    await userEvent.click(within(screen.getByRole('listitem', { name: 'Function get_weather' })).getByRole('button', { name: 'Approve' }));
    // Approving asks first, naming the function; cancelling sends nothing.
    const confirm = await screen.findByRole('dialog', { name: 'Approve get_weather' });
    expect(confirm).toHaveTextContent(FunctionMessages.approveConfirm('get_weather'));
    await userEvent.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    expect(requests.filter((r) => r.path === '/api/admin/functions/review')).toHaveLength(1);
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    await userEvent.click(within(screen.getByRole('listitem', { name: 'Function get_weather' })).getByRole('button', { name: 'Approve' }));
    await userEvent.click(within(await screen.findByRole('dialog', { name: 'Approve get_weather' })).getByRole('button', { name: 'Approve' }));
    await waitFor(() => expect(requests.filter((r) => r.path === '/api/admin/functions/review').at(-1)?.body).toEqual({ id: 7, version: 2, decision: 'approve' }));
    // Feedback that stays where the card was.
    expect(await screen.findByRole('status')).toHaveTextContent(FunctionMessages.approvedNamed('get_weather'));
  });
});
