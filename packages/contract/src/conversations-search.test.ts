import { describe, expect, it } from 'vitest';
import { ConversationLimits, ZExportConversationsQuery, ZGetConversationQuery, ZListConversationsQuery, searchWords } from './conversations.js';

// The conversation search's text (ADR 098): bounded, words only, blank is no filter.
describe('the search text', () => {
  it('keeps the words, at most searchMaxWords of them, control characters and backslashes as spaces', () => {
    expect(searchWords('  refund \t kettle  ')).toBe('refund kettle');
    expect(searchWords('a\\b\u0000c\u007fd')).toBe('a b c d');
    expect(searchWords(Array.from({ length: 20 }, (_, i) => `w${i}`).join(' ')).split(' ')).toHaveLength(ConversationLimits.searchMaxWords);
    expect(searchWords(' \n ')).toBe('');
  });

  it('is bounded and optional on the list, the export and one transcript', () => {
    for (const schema of [ZListConversationsQuery, ZExportConversationsQuery]) {
      expect(schema.parse({ q: ' refund ' }).q).toBe('refund');
      expect(schema.parse({ q: '   ' }).q).toBeUndefined();
      expect(schema.safeParse({ q: 'x'.repeat(ConversationLimits.searchMaxChars + 1) }).success).toBe(false);
      expect(schema.safeParse({ q: ['a', 'b'] }).success).toBe(false);
    }
    expect(ZGetConversationQuery.parse({ id: '6f1c2f9e-1a2b-4c3d-8e4f-000000000001', q: 'refund' }).q).toBe('refund');
  });
});
