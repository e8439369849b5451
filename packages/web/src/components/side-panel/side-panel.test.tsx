import { describe, expect, it, vi } from 'vitest';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ApiError } from '../../lib/api-client';
import { InfoPanel } from './info-panel';
import { SidePanel } from './side-panel';

interface Item {
  id: number;
  name: string;
  isLocked?: boolean;
}

const items: Item[] = [
  { id: 1, name: 'First' },
  { id: 2, name: 'Second', isLocked: true },
];

function renderPanel(overrides: Partial<Parameters<typeof SidePanel<Item>>[0]> = {}) {
  const props = {
    title: 'Things',
    itemsName: 'things',
    items,
    isLoading: false,
    error: null,
    onRetry: vi.fn(),
    getKey: (item: Item) => item.id,
    getTitle: (item: Item) => item.name,
    renderDetails: (item: Item) => <span>details of {item.name}</span>,
    selectedKey: null,
    onEdit: vi.fn(),
    onDelete: vi.fn(),
    canDelete: (item: Item) => !item.isLocked,
    onCreate: vi.fn(),
    createLabel: 'New',
    emptyText: 'Nothing yet.',
    ...overrides,
  };
  render(<SidePanel<Item> {...props} />);
  return props;
}

const cardOf = (name: string) => screen.getByRole('heading', { name }).closest('li')!;

describe('SidePanel', () => {
  it('lists a card per item with its details, Edit and Delete (only where allowed)', async () => {
    const props = renderPanel();
    expect(screen.getByRole('heading', { name: 'Things' })).toBeInTheDocument();
    expect(within(cardOf('First')).getByText('details of First')).toBeInTheDocument();
    await userEvent.click(within(cardOf('First')).getByRole('button', { name: 'Edit First' }));
    expect(props.onEdit).toHaveBeenCalledWith(items[0]);
    await userEvent.click(within(cardOf('First')).getByRole('button', { name: 'Delete First' }));
    expect(props.onDelete).toHaveBeenCalledWith(items[0]);
    expect(within(cardOf('Second')).queryByRole('button', { name: /Delete/ })).not.toBeInTheDocument();
  });

  it("selects a card by a click on its body, but not when it is already selected or a button inside is clicked", async () => {
    const props = renderPanel({ selectedKey: 2 });
    await userEvent.click(within(cardOf('First')).getByText('details of First'));
    expect(props.onEdit).toHaveBeenCalledWith(items[0]);
    await userEvent.click(within(cardOf('Second')).getByText('details of Second'));
    expect(props.onEdit).toHaveBeenCalledTimes(1);
    await userEvent.click(within(cardOf('First')).getByRole('button', { name: 'Delete First' }));
    expect(props.onEdit).toHaveBeenCalledTimes(1);
  });

  it('highlights the selected card and offers the way back to create mode', async () => {
    const props = renderPanel({ selectedKey: 2 });
    const selected = cardOf('Second').querySelector('[aria-current="true"]');
    expect(selected).not.toBeNull();
    expect(cardOf('First').querySelector('[aria-current="true"]')).toBeNull();
    expect(within(cardOf('Second')).getByRole('button', { name: 'Edit Second' })).toBeDisabled();
    await userEvent.click(screen.getByRole('button', { name: 'New' }));
    expect(props.onCreate).toHaveBeenCalled();
  });

  it('shows the empty text when there is nothing', () => {
    renderPanel({ items: [] });
    expect(screen.getByText('Nothing yet.')).toBeInTheDocument();
  });

  it('shows the load failure with its reason and a retry', async () => {
    const error = new ApiError({ kind: 'http', message: 'x', status: 500, body: { status: 'FAIL', errors: ['Database down'] } });
    const props = renderPanel({ items: undefined, error });
    expect(screen.getByText("Oops! Something went wrong. We couldn't load the things.")).toBeInTheDocument();
    expect(screen.getByText('Database down')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(props.onRetry).toHaveBeenCalled();
  });
});

describe('InfoPanel', () => {
  it('shows the title, description, possible values and why it is important', () => {
    render(
      <InfoPanel
        item={{
          title: 'File Name',
          description: 'The name of the function.',
          possibleValues: [{ name: 'Letters', type: 'text', description: 'Only letters.', condition: 'When creating.' }],
          usefulness: 'The model reads it.',
        }}
      />,
    );
    const panel = screen.getByRole('complementary', { name: 'Field help' });
    expect(within(panel).getByRole('heading', { name: 'File Name' })).toBeInTheDocument();
    expect(within(panel).getByText('The name of the function.')).toBeInTheDocument();
    expect(within(panel).getByText('Possible values')).toBeInTheDocument();
    expect(within(panel).getByText('Letters')).toBeInTheDocument();
    expect(within(panel).getByText('When creating.')).toBeInTheDocument();
    expect(within(panel).getByRole('heading', { name: 'Why is this important?' })).toBeInTheDocument();
    expect(within(panel).getByText('The model reads it.')).toBeInTheDocument();
  });
});
