import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KnowledgeMessages } from '@persona/contract';
import { checkKnowledgeFile } from './components/file-tab';
import { itemNameFor } from './components/url-tab';
import { multiProgress, useCreepingProgress } from './hooks/use-creeping-progress';

const MB = 1024 * 1024;

describe('knowledge file rules', () => {
  it('accepts PDF ≤ 25 MB, TXT ≤ 5 MB and DOCX ≤ 20 MB, by type or by extension', () => {
    expect(checkKnowledgeFile({ name: 'a.pdf', size: 25 * MB, type: 'application/pdf' })).toEqual({ type: 'application/pdf' });
    expect(checkKnowledgeFile({ name: 'a.PDF', size: 10, type: '' })).toEqual({ type: 'application/pdf' });
    expect(checkKnowledgeFile({ name: 'notes.txt', size: 5 * MB + 1, type: 'text/plain' })).toEqual({ error: KnowledgeMessages.fileTooLarge(5, 'TXT') });
    expect(checkKnowledgeFile({ name: 'r.docx', size: 20 * MB + 1, type: '' })).toEqual({ error: '❌ File size exceeds 20MB for DOCX.' });
    expect(checkKnowledgeFile({ name: 'x.exe', size: 10, type: 'application/octet-stream' })).toEqual({ error: KnowledgeMessages.invalidFile });
    expect(checkKnowledgeFile({ name: 'old.doc', size: 10, type: 'application/msword' })).toEqual({ error: '❌ Invalid file type or file exceeds size limit.' });
  });

  it('names URL items by the name alone for one URL, else with the page', () => {
    expect(itemNameFor('Docs', 'https://a.example/x/', 1)).toBe('Docs');
    expect(itemNameFor('Docs', 'https://a.example/x/', 2)).toBe('Docs — a.example/x');
  });
});

describe('progress', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('single item: creeps towards 98% every 200 ms, never past it, then 100% on the outcome', () => {
    const { result } = renderHook(() => useCreepingProgress());
    act(() => result.current.start());
    expect(result.current.state).toBe('normal');
    act(() => vi.advanceTimersByTime(200));
    const first = result.current.value;
    expect(first).toBeGreaterThan(0);
    act(() => vi.advanceTimersByTime(2000));
    expect(result.current.value).toBeGreaterThan(first);
    act(() => vi.advanceTimersByTime(120_000));
    expect(result.current.value).toBe(98);
    act(() => result.current.finish('error'));
    expect(result.current).toMatchObject({ state: 'error', value: 100 });
  });

  it('multi-URL: normal capped at 98% until all are done, then success, partial or error', () => {
    expect(multiProgress(3, 1, 0)).toEqual({ state: 'normal', value: 33 });
    expect(multiProgress(50, 49, 0)).toEqual({ state: 'normal', value: 98 });
    expect(multiProgress(2, 2, 0)).toEqual({ state: 'success', value: 100 });
    expect(multiProgress(2, 1, 1)).toEqual({ state: 'partial', value: 100 });
    expect(multiProgress(2, 0, 2)).toEqual({ state: 'error', value: 100 });
  });
});
