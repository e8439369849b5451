import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { ApprovalStatus, FailReason, FunctionMessages, type TFunction } from '@persona/contract';
import { createTestApp, flush, type TestContext } from '../../test/build-app.js';
import { createAvatar, createSignedInUser } from '../../test/factories.js';
import { createFunctionsRepository } from './repository.js';
import { createFunctionsService } from './service.js';

let t: TestContext;
let admin: Awaited<ReturnType<typeof createSignedInUser>>;
beforeAll(async () => {
  t = await createTestApp();
  admin = await createSignedInUser(t.app, t.database, { userType: 'ADMIN', email: `moderator-${Date.now()}@example.com` });
  // The extraction thread loads the python grammar on its first parse: a cold start that took the
  // first test past its 30 s on a loaded machine is paid here, with a hook's own time.
  await t.app.knowledge.extractor.run({ op: 'python', code: 'def warm():\n    pass\n' });
}, 120_000);
afterAll(async () => {
  await t.close();
});

type Headers = Record<string, string>;
const code = (name: string, body = 'return 1') => `def ${name}(x: int = 1) -> int:\n    """Does ${name}."""\n    ${body}\n`;
const mutate = (headers: Headers, functions: unknown[]) => t.app.inject({ method: 'POST', url: '/api/functions', headers, payload: { functions } });
const list = async (headers: Headers): Promise<TFunction[]> => (await t.app.inject({ url: '/api/list_functions', headers })).json().functions;
const review = (headers: Headers, payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/api/admin/functions/review', headers, payload });

async function createFunction(headers: Headers, name: string, source = code(name)): Promise<TFunction> {
  const res = await mutate(headers, [{ action: 'new', name, code: source, template: 'example' }]);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().results[0].function;
}

async function approve(fn: TFunction) {
  const res = await review(admin.headers, { id: fn.id, version: fn.version, decision: 'approve' });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().function as TFunction;
}

describe('POST /api/functions and GET /api/list_functions', () => {
  it('creates a function as Pending with its dates, updates and deletes it, item by item', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const res = await mutate(me.headers, [{ action: 'new', name: 'lookup_order', code: code('lookup_order'), template: 'example' }]);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.status).toBe('OK');
    const created = body.results[0].function as TFunction;
    expect(created).toMatchObject({ name: 'lookup_order', language: 'python', template: 'example', approvalStatus: ApprovalStatus.Pending, lastUpdateDate: null, lastAdminUpdateDate: null, rejectionReason: null });
    expect(new Date(created.createDate).getTime()).toBeGreaterThan(0);
    expect(await list(me.headers)).toEqual([created]);

    const updated = await mutate(me.headers, [{ action: 'update', id: created.id, code: code('lookup_order', 'return 2') }]);
    expect(updated.statusCode).toBe(200);
    const after = updated.json().results[0].function as TFunction;
    expect(after.code).toContain('return 2');
    expect(after.lastUpdateDate).not.toBeNull();
    expect(after.version).toBe(created.version + 1);

    const deleted = await mutate(me.headers, [{ action: 'delete', id: created.id }]);
    expect(deleted.json()).toEqual({ status: 'OK', results: [{ action: 'delete', id: created.id, status: 'OK', errors: [], unlinkedAvatars: 0 }] });
    expect(await list(me.headers)).toEqual([]);
  });

  it('applies several items on their own and reports each', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const keep = await createFunction(me.headers, 'keep_me');
    const res = await mutate(me.headers, [
      { action: 'new', name: 'first_one', code: code('first_one') },
      { action: 'new', name: 'broken', code: 'def broken(:\n    pass\n' },
      { action: 'update', id: keep.id, name: 'keep_me', code: code('keep_me', 'return 3') },
    ]);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.status).toBe('FAIL');
    expect(body.results.map((r: { status: string }) => r.status)).toEqual(['OK', 'FAIL', 'OK']);
    expect(body.errors[0]).toMatch(/^Item 2 \(new\): Syntax error on line 1/);
    expect((await list(me.headers)).map((f) => f.name).sort()).toEqual(['first_one', 'keep_me']);
  });

  it('answers the spec messages for a missing name or code', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const res = await mutate(me.headers, [{ action: 'new', name: '', code: '   ' }]);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: 'FAIL', failReason: FailReason.InvalidOrMissingParams });
    expect(res.json().errors).toEqual(expect.arrayContaining([FunctionMessages.nameRequired, FunctionMessages.codeRequired]));
    const missing = await mutate(me.headers, [{ action: 'new' }]);
    expect(missing.json().errors).toEqual(expect.arrayContaining([FunctionMessages.nameRequired, FunctionMessages.codeRequired]));
    const badName = await mutate(me.headers, [{ action: 'new', name: 'get weather!', code: code('x') }]);
    expect(badName.json().errors).toEqual([FunctionMessages.nameInvalid]);
    const empty = await t.app.inject({ method: 'POST', url: '/api/functions', headers: me.headers, payload: { functions: [] } });
    expect(empty.json().errors).toEqual([FunctionMessages.noItems]);
  });

  it('answers a syntax error with its line, and an entry function that does not match the File Name', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const res = await mutate(me.headers, [{ action: 'new', name: 'add_numbers', code: 'def add_numbers(a, b):\n    total = a +\n    return total\n' }]);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatch(/^Syntax error on line 2, column \d+: /);
    const wrongEntry = await mutate(me.headers, [{ action: 'new', name: 'add_numbers.py', code: code('sum_numbers') }]);
    expect(wrongEntry.statusCode).toBe(400);
    expect(wrongEntry.json().errors).toEqual([FunctionMessages.entryMissing('add_numbers')]);
    expect(await list(me.headers)).toEqual([]);
  });

  it('refuses a second function with the same File Name', async () => {
    const me = await createSignedInUser(t.app, t.database);
    await createFunction(me.headers, 'book_table');
    const res = await mutate(me.headers, [{ action: 'new', name: 'book_table.py', code: code('book_table') }]);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([FunctionMessages.nameTaken]);
  });

  it("answers 404 for another account's function on update and delete, and leaves it alone", async () => {
    const owner = await createSignedInUser(t.app, t.database);
    const other = await createSignedInUser(t.app, t.database);
    const fn = await createFunction(owner.headers, 'private_fn');
    for (const item of [
      { action: 'update', id: fn.id, code: code('private_fn', 'return 666') },
      { action: 'delete', id: fn.id },
    ]) {
      const res = await mutate(other.headers, [item]);
      expect(res.statusCode).toBe(404);
      expect(res.json().errors).toEqual([FunctionMessages.notFound]);
    }
    expect(await list(other.headers)).toEqual([]);
    expect((await list(owner.headers))[0]!.code).toBe(fn.code);
  });

  it('needs a session', async () => {
    expect((await t.app.inject({ url: '/api/list_functions', headers: { authorization: 'Bearer test-app-key' } })).statusCode).toBe(401);
  });
});

describe('moderation', () => {
  it('lets only admins see the queue and decide (403 for users)', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const fn = await createFunction(me.headers, 'needs_review');
    expect((await t.app.inject({ url: '/api/admin/functions', headers: me.headers })).statusCode).toBe(403);
    const res = await review(me.headers, { id: fn.id, version: fn.version, decision: 'approve' });
    expect(res.statusCode).toBe(403);
    expect((await list(me.headers))[0]!.approvalStatus).toBe(ApprovalStatus.Pending);
  });

  it('queues pending functions with their code and owner; approving e-mails the owner and shows Approved', async () => {
    const me = await createSignedInUser(t.app, t.database, { firstName: 'Grace', lastName: 'Hopper' });
    const fn = await createFunction(me.headers, 'approve_me');
    await flush();
    expect(t.mail.sent.some((m) => m.to === admin.email && m.subject === 'Function to review: approve_me')).toBe(true);

    const queue = (await t.app.inject({ url: '/api/admin/functions?status=0', headers: admin.headers })).json().functions;
    const item = queue.find((f: { id: number }) => f.id === fn.id);
    expect(item).toMatchObject({ name: 'approve_me', code: fn.code, ownerName: 'Grace Hopper', ownerEmail: me.email, userId: me.id, approvalStatus: 0 });

    const approved = await approve(fn);
    expect(approved).toMatchObject({ approvalStatus: ApprovalStatus.Approved, reviewedBy: admin.email });
    expect(approved.lastAdminUpdateDate).not.toBeNull();
    await flush();
    const mail = t.mail.sent.find((m) => m.to === me.email && m.subject.includes('approve_me'));
    expect(mail?.text).toContain(FunctionMessages.approvedMail('approve_me'));
    expect((await list(me.headers))[0]).toMatchObject({ approvalStatus: ApprovalStatus.Approved });
    const pending = (await t.app.inject({ url: '/api/admin/functions?status=0', headers: admin.headers })).json().functions;
    expect(pending.some((f: { id: number }) => f.id === fn.id)).toBe(false);
  });

  it('rejects with a required reason, which the owner reads in the e-mail and on the function', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const fn = await createFunction(me.headers, 'reject_me');
    const noReason = await review(admin.headers, { id: fn.id, version: fn.version, decision: 'reject' });
    expect(noReason.statusCode).toBe(400);
    expect(noReason.json().errors).toEqual([FunctionMessages.reasonRequired]);
    const res = await review(admin.headers, { id: fn.id, version: fn.version, decision: 'reject', reason: 'It opens arbitrary files.' });
    expect(res.json().function).toMatchObject({ approvalStatus: ApprovalStatus.Rejected, rejectionReason: 'It opens arbitrary files.' });
    await flush();
    const mail = t.mail.sent.find((m) => m.to === me.email && m.subject.includes('reject_me'));
    expect(mail?.text).toContain('Reason: It opens arbitrary files.');
    expect((await list(me.headers))[0]).toMatchObject({ approvalStatus: ApprovalStatus.Rejected, rejectionReason: 'It opens arbitrary files.' });

    // Fixing the code sends it back for review.
    const fixed = await mutate(me.headers, [{ action: 'update', id: fn.id, code: code('reject_me', 'return 0') }]);
    expect(fixed.json().results[0].function).toMatchObject({ approvalStatus: ApprovalStatus.Pending, rejectionReason: null });
  });

  it("sends an approved function back to Pending when its code changes, not when it doesn't", async () => {
    const me = await createSignedInUser(t.app, t.database);
    const fn = await approve(await createFunction(me.headers, 'stable_fn'));
    const same = await mutate(me.headers, [{ action: 'update', id: fn.id, name: 'stable_fn', code: fn.code }]);
    expect(same.json().results[0].function.approvalStatus).toBe(ApprovalStatus.Approved);
    const changed = await mutate(me.headers, [{ action: 'update', id: fn.id, code: code('stable_fn', 'return 42') }]);
    expect(changed.json().results[0].function.approvalStatus).toBe(ApprovalStatus.Pending);
  });

  it('sends an approved function back to Pending when a rename changes its entry point', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const twoEntries = `${code('greet')}\n${code('wipe_disk', 'return 0')}`;
    const fn = await approve(await createFunction(me.headers, 'greet', twoEntries));
    // Same entry point (greet.py is greet): still approved.
    const sameEntry = await mutate(me.headers, [{ action: 'update', id: fn.id, name: 'greet.py' }]);
    expect(sameEntry.json().results[0].function).toMatchObject({ name: 'greet.py', approvalStatus: ApprovalStatus.Approved });
    // The moderators approved calling greet, not wipe_disk.
    const renamed = await mutate(me.headers, [{ action: 'update', id: fn.id, name: 'wipe_disk' }]);
    expect(renamed.json().results[0].function).toMatchObject({ name: 'wipe_disk', approvalStatus: ApprovalStatus.Pending });
    expect((await list(me.headers)).find((f) => f.id === fn.id)!.approvalStatus).toBe(ApprovalStatus.Pending);
    expect((await t.app.inject({ url: '/api/realtime/functions', headers: me.headers })).json().functions).toEqual([]);
    await flush();
    expect(t.mail.sent.some((m) => m.to === admin.email && m.subject === 'Function to review: wipe_disk')).toBe(true);
  });

  it('does not approve code that changed after the moderator read it', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const fn = await createFunction(me.headers, 'moving_target');
    await mutate(me.headers, [{ action: 'update', id: fn.id, code: code('moving_target', 'import os; return os.system("rm -rf /")') }]);
    const res = await review(admin.headers, { id: fn.id, version: fn.version, decision: 'approve' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ errors: [FunctionMessages.changedSinceLoaded], failReason: FailReason.StaleRequest });
    expect((await list(me.headers))[0]!.approvalStatus).toBe(ApprovalStatus.Pending);
    expect((await review(admin.headers, { id: 999_999, version: 1, decision: 'approve' })).statusCode).toBe(404);
  });
});

describe('GET /api/realtime/functions', () => {
  it("returns only the caller's approved functions, with their entry, description and parameters", async () => {
    const me = await createSignedInUser(t.app, t.database);
    const other = await createSignedInUser(t.app, t.database);
    await approve(await createFunction(me.headers, 'get_weather', 'def get_weather(city: str, units: str = "celsius") -> dict:\n    """Current weather in a city."""\n    return {}\n'));
    const weather = (await list(me.headers)).find((f) => f.name === 'get_weather')!;
    await createFunction(me.headers, 'still_pending');
    await approve(await createFunction(other.headers, 'not_mine'));
    const res = await t.app.inject({ url: '/api/realtime/functions', headers: me.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json().functions).toEqual([
      {
        ...weather,
        entry: 'get_weather',
        description: 'Current weather in a city.',
        parameters: [
          { name: 'city', type: 'str', required: true, default: null },
          { name: 'units', type: 'str', required: false, default: '"celsius"' },
        ],
      },
    ]);
  });
});

describe('GET /api/function_templates', () => {
  it('offers the empty canvas, the example, weather and SSML', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const res = await t.app.inject({ url: '/api/function_templates', headers: me.headers });
    expect(res.json().templates.map((x: { id: string }) => x.id)).toEqual(['empty', 'example', 'weather', 'ssml']);
  });
});

describe('linking to avatars', () => {
  const service = () => createFunctionsService({ repo: createFunctionsRepository(t.database.db), mailer: t.mail, log: t.app.log, publicUrl: 'http://portal.test' });

  it('deleting a function removes it from the avatars it is linked to', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const other = await createSignedInUser(t.app, t.database);
    const a = await approve(await createFunction(me.headers, 'fn_a'));
    const b = await approve(await createFunction(me.headers, 'fn_b'));
    const linked = await createAvatar(t.database, me.id, 'Linked');
    const alsoLinked = await createAvatar(t.database, me.id, 'Linked as text');
    const unrelated = await createAvatar(t.database, me.id, 'Unrelated');
    const theirs = await createAvatar(t.database, other.id, 'Theirs');
    const setConfig = (id: number, config: unknown) => t.database.db.execute(sql`update avatars set config = ${JSON.stringify(config)}::jsonb where id = ${id}`);
    await setConfig(linked.id, { functions: [a.id, b.id], wakeUpMessage: 'Hi' });
    await setConfig(alsoLinked.id, { functions: [String(a.id)] });
    await setConfig(unrelated.id, { functions: [b.id] });
    await setConfig(theirs.id, { functions: [a.id] });

    const res = await mutate(me.headers, [{ action: 'delete', id: a.id }]);
    expect(res.json().results[0]).toMatchObject({ status: 'OK', unlinkedAvatars: 2 });
    const rows = (await t.database.db.execute(sql`select id, config, version from avatars where id in (${linked.id}, ${alsoLinked.id}, ${unrelated.id}, ${theirs.id}) order by id`)).rows as { id: number; config: { functions: unknown[] }; version: number }[];
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(linked.id)!.config).toEqual({ functions: [b.id], wakeUpMessage: 'Hi' });
    expect(byId.get(linked.id)!.version).toBe(linked.version + 1);
    expect(byId.get(alsoLinked.id)!.config.functions).toEqual([]);
    expect(byId.get(unrelated.id)!.config.functions).toEqual([b.id]);
    expect(byId.get(unrelated.id)!.version).toBe(unrelated.version);
    expect(byId.get(theirs.id)!.config.functions).toEqual([a.id]);
  });

  it('lets only approved functions of the owner be linked', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const other = await createSignedInUser(t.app, t.database);
    const ok = await approve(await createFunction(me.headers, 'linkable'));
    const pending = await createFunction(me.headers, 'not_yet');
    const foreign = await approve(await createFunction(other.headers, 'foreign'));
    await expect(service().assertLinkable(me.id, [ok.id, ok.id])).resolves.toBeUndefined();
    await expect(service().assertLinkable(me.id, [ok.id, pending.id, foreign.id])).rejects.toMatchObject({
      statusCode: 400,
      errors: [FunctionMessages.notLinkable(['not_yet', `#${foreign.id}`])],
    });
  });
});
