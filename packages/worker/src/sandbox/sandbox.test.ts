import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { functionTemplates } from '../../../server/src/features/functions/templates.js';
import { createSandboxPool } from './pool.js';
import type { SandboxPool } from './types.js';
import { createFunctionTools, TOOL_BUSY_ERROR, TOOL_QUEUE_WAIT_MS } from './tool-runner.js';
import { LLM_IDLE_MS } from '../providers/llm/openai-compatible.js';
import { until } from '../test/until.js';

// Sandbox processes take seconds to start on a busy two-core machine.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 180_000 });

// The real templates users start from (the server owns them; read here, never imported by src).
const template = (id: string) => {
  const found = functionTemplates.find((t) => t.id === id);
  if (!found) throw new Error(`no template ${id}`);
  return found;
};
const silent = { warn: () => {}, error: () => {} };
/** Calls whose subject is not isolation share one interpreter, so that the file runs warm. */
const shared = { isolationKey: 'tests' };

let pool: SandboxPool;

beforeAll(async () => {
  pool = createSandboxPool({ size: 2, timeoutMs: 4000, memoryLimitMb: 320, log: silent });
  await pool.ready();
});
afterAll(() => pool.close());

describe('describe(): tool definitions from the code', () => {
  it('describes the split_bill template: names, types, defaults and Args descriptions', async () => {
    const t = template('example');
    expect(await pool.describe(t.code, t.name)).toEqual({
      ok: true,
      tool: {
        type: 'function',
        function: {
          name: 'split_bill',
          description: 'Work out the tip for a restaurant bill and how much each person pays.\n\nCall this when the visitor asks how to split a bill or how much to tip.',
          parameters: {
            type: 'object',
            properties: {
              total: { type: 'number', description: 'The bill amount before the tip.' },
              people: { type: 'integer', default: 1, description: 'How many people share the bill (at least 1).' },
              tip_percent: { type: 'number', default: 15, description: 'The tip as a percentage of the bill, for example 15.' },
            },
            required: ['total'],
            additionalProperties: false,
          },
        },
      },
    });
  });

  it('describes every template by its File Name', async () => {
    for (const t of functionTemplates) {
      const answer = await pool.describe(t.code, t.name);
      if (!answer.ok) throw new Error(`${t.id}: ${answer.error}`);
      expect(answer.tool.function.name).toBe(t.name);
      expect(answer.tool.function.description).not.toMatch(/Args:/);
      expect(answer.tool.function.description.length).toBeGreaterThan(10);
    }
    const weather = await pool.describe(template('weather').code, 'get_weather');
    expect(weather.ok && weather.tool.function.parameters).toEqual({
      type: 'object',
      properties: {
        city: { type: 'string', description: 'The city name, for example "Paris" or "New York".' },
        units: { type: 'string', default: 'celsius', description: '"celsius" or "fahrenheit".' },
      },
      required: ['city'],
      additionalProperties: false,
    });
  });

  it('maps typing constructs and Sphinx / NumPy docstrings to JSON schema', async () => {
    const code = `from typing import Annotated, Any, Literal, Optional, Union
Units = Literal["metric", "imperial"]

def _helper():
    pass

def plan(
    city: str,
    days: int = 3,
    tags: list[str] | None = None,
    units: Units = "metric",
    mode: Literal["fast", "slow"] = "fast",
    scores: dict[str, float] = {},
    when: Optional["int"] = None,
    either: Union[int, str] = 0,
    pair: tuple[int, int] = (1, 2),
    note: Annotated[str, "A note for the planner."] = "",
    anything=None,
    *rest,
    strict: bool = False,
    **extra: Any,
) -> dict:
    """Plan a trip.

    :param city: Where to go.
    :param int days: How many
        days to stay.
    :type days: int
    :returns: the plan
    """
`;
    const answer = await pool.describe(code);
    expect(answer.ok).toBe(true);
    if (!answer.ok) return;
    expect(answer.tool.function.name).toBe('plan');
    expect(answer.tool.function.description).toBe('Plan a trip.\n\n:returns: the plan');
    expect(answer.tool.function.parameters).toEqual({
      type: 'object',
      properties: {
        city: { type: 'string', description: 'Where to go.' },
        days: { type: 'integer', default: 3, description: 'How many days to stay.' },
        tags: { type: ['array', 'null'], items: { type: 'string' }, default: null },
        units: { type: 'string', enum: ['metric', 'imperial'], default: 'metric' },
        mode: { type: 'string', enum: ['fast', 'slow'], default: 'fast' },
        scores: { type: 'object', additionalProperties: { type: 'number' }, default: {} },
        when: { type: ['integer', 'null'], default: null },
        either: { type: ['integer', 'string'], default: 0 },
        pair: { type: 'array', items: { type: 'integer' }, minItems: 2, maxItems: 2, default: [1, 2] },
        note: { type: 'string', description: 'A note for the planner.', default: '' },
        anything: { type: 'string', default: null },
        strict: { type: 'boolean', default: false },
      },
      required: ['city'],
    });

    const numpy = await pool.describe(
      `def area(width: float, height: float = 1.0) -> float:
    """Area of a rectangle.

    Parameters
    ----------
    width : float
        The width,
        in metres.
    height : float
        The height.

    Returns
    -------
    float
    """
    return width * height
`,
      'area',
    );
    expect(numpy.ok && numpy.tool.function.parameters.properties).toEqual({
      width: { type: 'number', description: 'The width, in metres.' },
      height: { type: 'number', default: 1, description: 'The height.' },
    });
    expect(numpy.ok && numpy.tool.function.description).toBe('Area of a rectangle.\n\nReturns\n-------\nfloat');
  });

  it('never runs the code it describes, and says what is wrong with unusable code', async () => {
    const t0 = Date.now();
    const looping = await pool.describe('while True:\n    pass\n\ndef f(x: int) -> int:\n    """Double."""\n    return 2 * x\n', 'f');
    expect(looping.ok).toBe(true);
    // Gave up at its bound rather than never (the other side never answers); how soon a busy machine runs the timer is not the test (issue 26, item 16).
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(await pool.describe('def f(:\n  pass\n', 'f')).toEqual({ ok: false, kind: 'invalid', error: "SyntaxError: invalid syntax (line 1)" });
    expect(await pool.describe('def other():\n  pass\n', 'wanted')).toEqual({ ok: false, kind: 'invalid', error: 'The code defines no top-level function named wanted.' });
    expect(await pool.describe('async def f():\n  pass\n', 'f')).toEqual({ ok: false, kind: 'invalid', error: 'f is an async def; functions must be a plain def.' });
    expect(await pool.describe('   ', 'f')).toEqual({ ok: false, kind: 'invalid', error: 'The function has no code.' });
  });
});

describe('call(): results', () => {
  it('returns JSON of a structured result, which the caller can use', async () => {
    const t = template('example');
    const answer = await pool.call(t.code, 'split_bill', '{"total": 50, "people": 2, "tip_percent": 20}', shared);
    expect(answer).toEqual({ ok: true, truncated: false, result: expect.any(String) });
    if (answer.ok) expect(JSON.parse(answer.result)).toEqual({ tip: 10, total_with_tip: 60, each_person_pays: 30, people: 2 });
  });

  it('returns a str result as it is', async () => {
    const t = template('ssml');
    const answer = await pool.call(t.code, 'speak_with_emphasis', JSON.stringify({ text: 'Pay 5 dollars. Now!', emphasis: '5 dollars' }), shared);
    expect(answer).toEqual({
      ok: true,
      truncated: false,
      result: '<speak><prosody rate="100%"><s>Pay <emphasis level="strong">5 dollars</emphasis></s><break time="300ms"/><s>Now</s><break time="300ms"/></prosody></speak>',
    });
  });

  it('answers short errors for exceptions, bad arguments and bad JSON', async () => {
    const code = 'def check(age: int) -> str:\n    if age < 0:\n        raise ValueError("age must not be negative")\n    return "ok"\n';
    expect(await pool.call(code, 'check', '{"age": -1}', shared)).toEqual({ ok: false, kind: 'raised', error: 'ValueError: age must not be negative' });
    expect(await pool.call(code, 'check', '{"years": 3}', shared)).toEqual({ ok: false, kind: 'raised', error: "TypeError: check() got an unexpected keyword argument 'years'" });
    expect(await pool.call(code, 'check', '{"age": ', shared)).toEqual({ ok: false, kind: 'invalid', error: 'The arguments are not valid JSON.' });
    expect(await pool.call(code, 'check', '[1]', shared)).toEqual({ ok: false, kind: 'invalid', error: 'The arguments must be a JSON object.' });
    expect(await pool.call(code, 'nope', '{}', shared)).toEqual({ ok: false, kind: 'invalid', error: 'The code defines no function named nope.' });
    expect(await pool.call('import not_a_module\ndef f():\n    return 1\n', 'f', '{}', shared)).toEqual({ ok: false, kind: 'raised', error: "ModuleNotFoundError: No module named 'not_a_module'" });
  });

  it('cuts long results at 16 KB and says so', async () => {
    const answer = await pool.call('def long() -> str:\n    return "é" * 50000\n', 'long', '{}', shared);
    expect(answer.ok).toBe(true);
    if (!answer.ok) return;
    expect(answer.truncated).toBe(true);
    expect(Buffer.byteLength(answer.result)).toBeLessThanOrEqual(16 * 1024);
    expect(answer.result).toMatch(/…\[truncated: the result was 100000 bytes\]$/);
  });
});

describe('limits', () => {
  it('stops an endless loop at the time limit, and the pool serves the next call', async () => {
    const code = 'def spin(forever: bool):\n    while forever:\n        pass\n    return "done"\n';
    // A warm process of this code first, so that the time measured is the call's own.
    expect(await pool.call(code, 'spin', '{"forever": false}', shared)).toEqual({ ok: true, result: 'done', truncated: false });
    const timeouts = pool.stats().kills.timeout;
    const t0 = Date.now();
    const answer = await pool.call(code, 'spin', '{"forever": true}', { ...shared, timeoutMs: 1000 });
    const took = Date.now() - t0;
    expect(answer).toEqual({ ok: false, kind: 'timeout', error: 'The function did not finish within 1 s and was stopped.' });
    // Counted for /metrics (persona_worker_sandbox_kills_total{reason="timeout"}).
    expect(pool.stats().kills.timeout).toBe(timeouts + 1);
    expect(took).toBeGreaterThanOrEqual(1000);
    expect(took).toBeLessThan(2500);
    expect(await pool.call(code, 'spin', '{"forever": false}', shared)).toEqual({ ok: true, result: 'done', truncated: false });
  });

  it('refuses memory a function asks of Python past the limit (MemoryError), and the process goes on', async () => {
    const code = 'STATE = []\ndef grab(mb: int) -> int:\n    STATE.append(bytearray(mb * 1024 * 1024))\n    return len(STATE)\n';
    expect(await pool.call(code, 'grab', '{"mb": 600}', shared)).toEqual({ ok: false, kind: 'raised', error: 'MemoryError' });
    // The same process (module state kept) is still alive and usable.
    expect(await pool.call(code, 'grab', '{"mb": 1}', shared)).toEqual({ ok: true, result: '1', truncated: false });
  });

  it('kills a process whose resident memory passes the limit by other means', { timeout: 60_000 }, async () => {
    // Memory outside the wasm heap: a JavaScript typed array reached through Pyodide's API.
    const code = `def bomb() -> str:
    import pyodide_js
    Int8Array = pyodide_js._module.HEAP8.constructor
    block = Int8Array.new(700 * 1024 * 1024)
    block.fill(1)
    return "filled"
`;
    // Time enough that the memory limit is what stops it: on a loaded machine filling the block
    // took longer than the pool's 4 s, and the call ended as a timeout instead.
    expect(await pool.call(code, 'bomb', '{}', { ...shared, timeoutMs: 40_000 })).toEqual({ ok: false, kind: 'memory', error: 'The function used more than 320 MB of memory and was stopped.' });
    expect(await pool.call('def ok() -> str:\n    return "fine"\n', 'ok', '{}', shared)).toEqual({ ok: true, result: 'fine', truncated: false });
  });

  it('survives a function that kills its interpreter', async () => {
    const answer = await pool.call('import os\ndef die():\n    os._exit(3)\n', 'die', '{}', shared);
    expect(answer.ok).toBe(false);
    if (!answer.ok) expect(answer.kind).toBe('crashed');
    expect(await pool.call('def ok() -> str:\n    return "fine"\n', 'ok', '{}', shared)).toEqual({ ok: true, result: 'fine', truncated: false });
  });

  it('stops a call when its signal aborts, running or still waiting', async () => {
    const code = 'import time\ndef wait(seconds: float) -> str:\n    time.sleep(seconds)\n    return "woke"\n';
    expect(await pool.call(code, 'wait', '{"seconds": 0}', shared)).toEqual({ ok: true, result: 'woke', truncated: false });
    const controller = new AbortController();
    const t0 = Date.now();
    // Two processes: two calls run, the third waits; the abort ends all three at once.
    // Calls of 30 s: ended by the abort, not by their end, however slow the machine (at 3 s, a
    // loaded one could not tell the two apart within the 2 s bound; issue 26, item 16).
    const answers = Promise.all([1, 2, 3].map(() => pool.call(code, 'wait', '{"seconds": 30}', { ...shared, signal: controller.signal })));
    setTimeout(() => controller.abort(), 300);
    expect(await answers).toEqual([1, 2, 3].map(() => ({ ok: false, kind: 'aborted', error: 'The call was cancelled.' })));
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(await pool.call(code, 'wait', '{"seconds": 0}', shared)).toEqual({ ok: true, result: 'woke', truncated: false });
  });

  it('runs as many calls at once as it has processes, one isolation key on all but one of them; the rest wait their turn', async () => {
    const code = 'import time\ndef nap(i: int) -> list:\n    start = time.time()\n    time.sleep(0.4)\n    return [i, start, time.time()]\n';
    const t0 = Date.now();
    const answers = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => pool.call(code, 'nap', JSON.stringify({ i }), i % 2 ? shared : { isolationKey: 'others' })));
    const took = Date.now() - t0;
    const spans = answers.map((a) => {
      if (!a.ok) throw new Error(a.error);
      return JSON.parse(a.result) as [number, number, number];
    });
    expect(spans.map((s) => s[0])).toEqual([0, 1, 2, 3, 4, 5]);
    // At most two at any moment (pool size 2), one of each key, so six naps of 0.4 s take at least 1.2 s.
    const overlapping = (group: [number, number, number][], start: number) => group.filter(([, s, e]) => s <= start + 0.001 && e > start + 0.001).length;
    for (const [, start] of spans) expect(overlapping(spans, start)).toBeLessThanOrEqual(2);
    for (const key of [0, 1]) {
      const own = spans.filter(([i]) => i % 2 === key);
      for (const [, start] of own) expect(overlapping(own, start)).toBe(1);
    }
    expect(took).toBeGreaterThanOrEqual(1150);
  });
});

describe('isolation', () => {
  it('gives a different function a fresh interpreter, while the same function keeps its module state', async () => {
    const writer = `import json, sys
COUNT = 0
def write() -> int:
    global COUNT
    COUNT += 1
    with open("/tmp/secret.txt", "w") as f:
        f.write("from writer")
    sys.left_behind = "by writer"
    json.dumps = lambda *a, **k: "tampered"
    return COUNT
`;
    const reader = `import json, os, sys
def read() -> dict:
    return {"file": os.path.exists("/tmp/secret.txt"), "sys": getattr(sys, "left_behind", None), "dumps": json.dumps([1])}
`;
    expect(await pool.call(writer, 'write', '{}')).toMatchObject({ ok: true, result: '1' });
    expect(await pool.call(writer, 'write', '{}')).toMatchObject({ ok: true, result: '2' });
    const answer = await pool.call(reader, 'read', '{}');
    expect(answer.ok).toBe(true);
    if (answer.ok) expect(JSON.parse(answer.result)).toEqual({ file: false, sys: null, dumps: '[1]' });
  });

  it('keeps the host out: no environment, no host files, no processes, no JavaScript escape', async () => {
    process.env.SANDBOX_TEST_SECRET = 'do-not-leak';
    const marker = path.join(os.tmpdir(), `sandbox-escape-${process.pid}`);
    const attempts: Record<string, string> = {
      environ: 'import os\ndef f():\n    return "do-not-leak" in str(dict(os.environ))\n',
      jsProcess: 'def f():\n    import js\n    return str(js.process.env)\n',
      jsRequire: 'def f():\n    import js\n    return str(js.require("child_process"))\n',
      passwd: 'def f():\n    return open("/etc/passwd").read()\n',
      mountHost: 'def f():\n    import pyodide_js\n    pyodide_js.mountNodeFS("/host", "/etc")\n    return open("/host/passwd").read()\n',
      mountPyodide: `def f():
    import pyodide_js
    pyodide_js.mountNodeFS("/host", ${JSON.stringify(os.tmpdir())})
    open("/host/${path.basename(marker)}", "w").write("x")
    return "written"
`,
      evalJs: 'def f():\n    from pyodide.code import run_js\n    return str(run_js("process.env"))\n',
      functionCtor: 'def f():\n    import pyodide_js\n    return str(pyodide_js.constructor.constructor("return process.env")())\n',
      system: `def f():\n    import os\n    return os.system("touch ${marker}")\n`,
      subprocess: `def f():\n    import subprocess\n    return str(subprocess.run(["touch", "${marker}"]))\n`,
    };
    for (const [name, code] of Object.entries(attempts)) {
      const answer = await pool.call(code, 'f', '{}', shared);
      // Either the attempt fails, or (environ) it finds nothing of the host.
      if (answer.ok) expect({ name, result: answer.result }).toEqual({ name, result: 'false' });
      else expect({ name, kind: answer.kind }).toEqual({ name, kind: expect.stringMatching(/^(raised|crashed)$/) });
    }
    expect(fs.existsSync(marker)).toBe(false);
    delete process.env.SANDBOX_TEST_SECRET;
  });

  it('opens no connection: sockets, http.client, pyfetch and urllib to 127.0.0.1 all fail', async () => {
    let connections = 0;
    const server = net.createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      // Pyodide can route sockets through node:net itself (useNodeSockFS): switch that on first.
      const switched = await pool.call('def f():\n    import pyodide_js\n    return str(pyodide_js.useNodeSockFS())\n', 'f', '{}', shared);
      expect(switched.ok).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const attempts = {
        socket: `import socket\ndef f():\n    s = socket.create_connection(("127.0.0.1", ${port}), timeout=2)\n    s.sendall(b"hello")\n    return "connected"\n`,
        nonBlocking: `import socket\ndef f():\n    s = socket.socket()\n    s.setblocking(False)\n    s.connect(("127.0.0.1", ${port}))\n    return "connecting"\n`,
        httpClient: `import http.client\ndef f():\n    c = http.client.HTTPConnection("127.0.0.1", ${port}, timeout=2)\n    c.request("GET", "/")\n    return str(c.getresponse().status)\n`,
        pyfetch: `def f():\n    import asyncio\n    from pyodide.http import pyfetch\n    return str(asyncio.get_event_loop().run_until_complete(pyfetch("http://127.0.0.1:${port}/")))\n`,
        openUrl: `def f():\n    from pyodide.http import open_url\n    return open_url("http://127.0.0.1:${port}/").read()\n`,
        urllib: `import urllib.request\ndef f():\n    return urllib.request.urlopen("http://127.0.0.1:${port}/", timeout=2).read().decode()\n`,
      };
      const errors: Record<string, string> = {};
      for (const [name, code] of Object.entries(attempts)) {
        const answer = await pool.call(code, 'f', '{}', shared);
        expect({ name, ok: answer.ok }).toEqual({ name, ok: false });
        if (!answer.ok) errors[name] = answer.error;
      }
      expect(errors.urllib).toBe('URLError: <urlopen error Network access is not allowed for this function.>');
      // With the network allowed the guard still refuses a private address.
      const guarded = await pool.call(attempts.urllib, 'f', '{}', { ...shared, allowNetwork: true });
      expect(guarded.ok === false && guarded.error).toMatch(/127\.0\.0\.1 is not a public address: loopback/);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
  });
});

describe('waiting for a process', () => {
  it('a cold pool gives its first calls the time the first start takes; once warm, a call waits queueTimeoutMs at most', async () => {
    const cold = createSandboxPool({ size: 1, prewarm: false, queueTimeoutMs: 50, log: silent });
    try {
      // Starting Pyodide takes far more than 50 ms: the call waits for it rather than failing.
      const described = await cold.describe('def add(a: int, b: int) -> int:\n    """Adds."""\n    return a + b\n', 'add');
      expect(described.ok).toBe(true);
      const code = 'import time\ndef nap() -> str:\n    time.sleep(1)\n    return "ok"\n';
      const [first, second] = await Promise.all([cold.call(code, 'nap', '{}'), cold.call(code, 'nap', '{}')]);
      expect(first).toMatchObject({ ok: true, result: 'ok' });
      expect(second).toMatchObject({ ok: false, kind: 'busy' });
    } finally {
      cold.close();
    }
  });

  it('one owner\u2019s slow calls do not hold up another owner\u2019s call (issue 26: 14.7 s): owners take turns, and one never holds every process', { timeout: 180_000 }, async () => {
    // Two warm processes, as a worker has them (the live runtime warms its pool at start).
    const fair = createSandboxPool({ size: 2, log: silent });
    try {
      await fair.ready();
      await owners(fair);
    } finally {
      await fair.close();
    }
  });

  async function owners(pool: SandboxPool) {
    const slow = 'import time\ndef slow() -> str:\n    time.sleep(1.5)\n    return "slow"\n';
    const quick = 'def quick() -> str:\n    return "quick"\n';
    const done: string[] = [];
    const a = [1, 2, 3].map((i) => pool.call(slow, 'slow', '{}', { isolationKey: 'user:1' }).then((r) => (done.push(`a${i}`), r)));
    const t0 = Date.now();
    const b = await pool.call(quick, 'quick', '{}', { isolationKey: 'user:2' }).then((r) => (done.push('b'), r));
    const bWaited = Date.now() - t0;
    expect(b).toMatchObject({ ok: true, result: 'quick' });
    // The other owner's call was answered before the first slow call ended (before: after two of them).
    expect(done).toEqual(['b']);
    expect((await Promise.all(a)).every((r) => r.ok)).toBe(true);
    expect(done).toEqual(['b', 'a1', 'a2', 'a3']);
    console.info(`[figures] another owner's call behind three 1.5 s calls: answered in ${bWaited} ms`);
  }

  it('a tool call waits for a process less than the model waits for a word: busy, with a result the model can tell the visitor about', { timeout: 180_000 }, async () => {
    // One warm process, held by another owner's slow call.
    const one = createSandboxPool({ size: 1, log: silent });
    try {
      await one.ready();
      const tools = createFunctionTools({ pool: one, functions: [{ id: 9, name: 'quick.py', code: 'def quick() -> str:\n    """Quick."""\n    return "quick"\n', allowNetwork: false }], isolationKey: 'user:2', queueTimeoutMs: 200, log: { info() {}, warn() {}, error() {} } });
      expect((await tools.tools()).map((t) => t.name)).toEqual(['quick']);
      const running = one.call('import time\ndef slow() -> str:\n    time.sleep(2)\n    return "slow"\n', 'slow', '{}', { isolationKey: 'user:1' });
      await until(() => one.stats().busy === 1, 60_000, 'the process busy');
      // The tool call gives up after its wait, with words for the model (before: it waited for the slow call, up to the pool's 20 s).
      expect(await tools.call('quick', '{}', new AbortController().signal)).toEqual({ ok: false, error: TOOL_BUSY_ERROR });
      expect((await running).ok).toBe(true);
      // The tool runner's own wait (used by the live sessions) is under the model stream's idle timeout.
      expect(TOOL_QUEUE_WAIT_MS).toBeLessThan(LLM_IDLE_MS);
    } finally {
      await one.close();
    }
  });

  it('closed while someone waits for it to be ready: the wait ends with an error, not never', async () => {
    const starting = createSandboxPool({ size: 1, log: silent });
    const ready = starting.ready().then(
      () => 'ready',
      (err: Error) => err.message,
    );
    await starting.close();
    expect(await ready).toBe('The function sandbox is shut down.');
    await expect(starting.ready()).rejects.toThrow('shut down');
  });
});
