import { describe, expect, it } from 'vitest';
import { render } from '@testing-library/react';
import { relevanceLabel } from './try-question';
import { BreakableUrl } from './knowledge-table';

describe('Try a question: a rank and a relevance a person understands', () => {
  it('calls the first passage the best match and the others a share of it, never a raw fusion score', () => {
    expect(relevanceLabel(0.0328, 0.0328, 0)).toBe('Best match');
    expect(relevanceLabel(0.0164, 0.0328, 1)).toBe('50% as relevant as the best');
    expect(relevanceLabel(0.00001, 0.0328, 7)).toBe('1% as relevant as the best');
    expect(relevanceLabel(0.0328, 0.0328, 1)).toBe('100% as relevant as the best');
  });
});

describe('knowledge table', () => {
  it('lets a URL wrap after its separators rather than mid-word', () => {
    const { container } = render(<BreakableUrl url="https://museum.example/visit/opening-hours?lang=en" />);
    expect(container.textContent).toBe('https://museum.example/visit/opening-hours?lang=en');
    expect(container.querySelectorAll('wbr').length).toBeGreaterThanOrEqual(6);
  });
});
