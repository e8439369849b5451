import { afterEach, describe, expect, it, vi } from 'vitest';
import { KnowledgeMessages } from '@persona/contract';

vi.mock('./knowledge-client', () => ({
  knowledgeRequest: vi.fn(async () => ({ status: 'OK', form: { key: 'knowledge/u1/x.txt' }, url: 'http://portal.test/knowledge/upload', final_url: 'http://portal.test/files/knowledge/u1/x.txt', max_bytes: 300 * 1024 })),
}));

const { uploadKnowledgeFile, UploadError } = await import('./upload-file');

describe('uploadKnowledgeFile', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('refuses, before posting, a file larger than the form allows (the storage quota left less than the type limit)', async () => {
    const fetch = vi.fn();
    vi.stubGlobal('fetch', fetch);
    const file = new File([new Uint8Array(400 * 1024)], 'notes.txt', { type: 'text/plain' });
    const attempt = uploadKnowledgeFile(file, 'text/plain');
    await expect(attempt).rejects.toBeInstanceOf(UploadError);
    await expect(attempt).rejects.toThrow(KnowledgeMessages.quotaTooSmall(0.2));
    expect(fetch).not.toHaveBeenCalled();
  });

  it('posts a file within the limit and answers the final_url', async () => {
    const fetch = vi.fn(async () => new Response(null, { status: 204 }));
    vi.stubGlobal('fetch', fetch);
    const file = new File([new Uint8Array(1024)], 'notes.txt', { type: 'text/plain' });
    await expect(uploadKnowledgeFile(file, 'text/plain')).resolves.toBe('http://portal.test/files/knowledge/u1/x.txt');
    expect(fetch).toHaveBeenCalledOnce();
  });
});
