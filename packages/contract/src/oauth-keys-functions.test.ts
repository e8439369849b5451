import { describe, expect, it } from 'vitest';
import { EncryptionKeyMessages, ZAddEncryptionKeyRequest } from './encryption-keys.js';
import { FunctionMessages, ZFunctionForm, ZMutateFunctionsRequest, ZReviewDecisionRequest, approvalStatusName, entryFunctionName } from './functions.js';
import { OAuthMessages, ZOAuthAppInput, ZOAuthStartQuery, isSecretNeededAgain, normaliseReturnPath, oauthAppInputSchema, truncateValue } from './oauth.js';

const messages = (result: { success: boolean; error?: { issues: { message: string }[] } }) => result.error?.issues.map((i) => i.message) ?? [];

describe('OAuth config rules', () => {
  const valid = { appName: 'A', partner: 'Google', clientId: 'id', clientSecret: 's', oauthURL: 'https://a.example/auth', tokenIssueURL: 'https://a.example/token' };

  it('cuts values longer than 30 characters with an ellipsis', () => {
    expect(truncateValue('x'.repeat(30))).toBe('x'.repeat(30));
    expect(truncateValue('x'.repeat(31))).toBe(`${'x'.repeat(30)}…`);
  });

  it('requires the client secret on create only', () => {
    expect(ZOAuthAppInput.safeParse(valid).success).toBe(true);
    expect(messages(ZOAuthAppInput.safeParse({ ...valid, clientSecret: '' }))).toEqual([OAuthMessages.clientSecretRequired]);
    expect(ZOAuthAppInput.safeParse({ ...valid, appId: 5, clientSecret: '' }).success).toBe(true);
  });

  it('says every missing field at once, in the spec words', () => {
    expect(messages(ZOAuthAppInput.safeParse({}))).toEqual([
      OAuthMessages.nameRequired,
      OAuthMessages.partnerRequired,
      OAuthMessages.clientIdRequired,
      OAuthMessages.oauthUrlRequired,
      OAuthMessages.tokenIssueUrlRequired,
      OAuthMessages.clientSecretRequired,
    ]);
  });

  it('only returns to paths on this portal, judged on their normalised form', () => {
    expect(ZOAuthStartQuery.safeParse({ returnTo: '/avatar/1' }).success).toBe(true);
    expect(normaliseReturnPath('/./avatar/../avatar/1?lang=en', 'https://portal.example')).toBe('/avatar/1?lang=en');
    expect(normaliseReturnPath('/%2F%2Fevil.example', 'https://portal.example')).toBe('/%2F%2Fevil.example');
    for (const returnTo of [
      'https://x.example',
      'https:x.example',
      'http:x.example',
      '//x.example',
      '/\\x.example',
      '\\\\x.example',
      '/.//x.example/steal',
      '/..//x.example',
      '/a/b/../..//x.example',
      '/\t/x.example',
      '\t//x.example',
      '/\n/x.example',
      '/\r\n/x.example',
      ' //x.example',
      '/\u3000/x.example',
      '/\u0000/x.example',
      'x.example',
      '',
    ]) {
      expect(ZOAuthStartQuery.safeParse({ returnTo }).success, JSON.stringify(returnTo)).toBe(false);
      expect(normaliseReturnPath(returnTo, 'https://portal.example'), JSON.stringify(returnTo)).toBeNull();
    }
  });

  it('asks for the client secret again when an endpoint changes on edit', () => {
    const stored = { oauthURL: 'https://a.example/auth', tokenIssueURL: 'https://a.example/token' };
    expect(isSecretNeededAgain(stored, { ...stored, clientSecret: '' })).toBe(false);
    expect(isSecretNeededAgain(stored, { ...stored, tokenIssueURL: 'https://b.example/token', clientSecret: '' })).toBe(true);
    expect(isSecretNeededAgain(stored, { ...stored, oauthURL: 'https://b.example/auth', clientSecret: '••••1234' })).toBe(true);
    expect(isSecretNeededAgain(stored, { ...stored, tokenIssueURL: 'https://b.example/token', clientSecret: 'new-secret' })).toBe(false);
    const schema = oauthAppInputSchema(stored);
    expect(messages(schema.safeParse({ ...valid, appId: 1, clientSecret: '', tokenIssueURL: 'https://b.example/token' }))).toEqual([OAuthMessages.clientSecretReenter]);
    expect(schema.safeParse({ ...valid, appId: 1, clientSecret: '' }).success).toBe(true);
    expect(oauthAppInputSchema()).toBe(ZOAuthAppInput);
  });
});

describe('function rules', () => {
  it('names the entry function after the File Name', () => {
    expect(entryFunctionName('get_weather.py')).toBe('get_weather');
    expect(entryFunctionName(' get_weather ')).toBe('get_weather');
  });

  it('answers the spec messages for the form', () => {
    expect(messages(ZFunctionForm.safeParse({ name: '', code: ' ' }))).toEqual([FunctionMessages.nameRequired, FunctionMessages.codeRequired]);
    expect(messages(ZFunctionForm.safeParse({ name: '1abc', code: 'x' }))).toEqual([FunctionMessages.nameInvalid]);
  });

  it('takes new/update/delete items, and needs an id to update or delete', () => {
    expect(ZMutateFunctionsRequest.safeParse({ functions: [{ action: 'delete', id: 3 }, { action: 'update', id: '4', code: 'def a(): pass' }] }).success).toBe(true);
    expect(messages(ZMutateFunctionsRequest.safeParse({ functions: [{ action: 'delete' }] }))).toEqual([FunctionMessages.idRequired]);
    expect(ZMutateFunctionsRequest.safeParse({ functions: [{ action: 'rename', id: 1 }] }).success).toBe(false);
  });

  it('needs a reason to reject', () => {
    expect(messages(ZReviewDecisionRequest.safeParse({ id: 1, version: 1, decision: 'reject', reason: '  ' }))).toEqual([FunctionMessages.reasonRequired]);
    expect(ZReviewDecisionRequest.safeParse({ id: 1, version: 1, decision: 'approve' }).success).toBe(true);
  });

  it('shows status names from the value', () => {
    expect([0, 1, 2, 9].map(approvalStatusName)).toEqual(['Pending', 'Approved', 'Rejected', 'Unknown']);
  });
});

describe('encryption key rules', () => {
  it('creates only: a name is required and an id means an edit, which is refused', () => {
    expect(messages(ZAddEncryptionKeyRequest.safeParse({ name: ' ' }))).toEqual([EncryptionKeyMessages.nameRequired]);
    expect(messages(ZAddEncryptionKeyRequest.safeParse({ id: 3, name: 'x' }))).toEqual([EncryptionKeyMessages.noEdit]);
    expect(ZAddEncryptionKeyRequest.safeParse({ id: null, name: 'x' }).success).toBe(true);
  });
});
