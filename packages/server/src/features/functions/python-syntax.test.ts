import { execFileSync, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { analysePython } from '../../lib/python-syntax.js';
import { checkFunctionCode } from './service.js';
import { functionTemplates } from './templates.js';

const hasPython = spawnSync('python3', ['--version']).status === 0;

describe('python syntax check (tree-sitter grammar)', () => {
  it('accepts modern python and reads the top-level functions', async () => {
    const code = [
      'import json',
      '',
      '@cache',
      'async def get_weather(city: str, days: int = 3, *args, units="metric", **kw) -> dict:',
      '    """Gets the',
      '    weather."""',
      '    match days:',
      '        case 1: return {"city": city}',
      '    return {"text": f"{city!r} in {days} days"}',
      '',
      'class Helper:',
      '    def method(self, x):',
      '        return x; # trailing',
      '',
    ].join('\n');
    const result = await analysePython(code);
    expect(result.errors).toEqual([]);
    expect(result.functions).toEqual([
      {
        name: 'get_weather',
        line: 4,
        docstring: 'Gets the\nweather.',
        parameters: [
          { name: 'city', type: 'str', required: true, default: null },
          { name: 'days', type: 'int', required: false, default: '3' },
          { name: 'units', type: null, required: false, default: '"metric"' },
        ],
      },
    ]);
  });

  it.each([
    ['def f(x):\n    return x +\n', 2],
    ['def add(a, b):\n    total = a +\n    return total\n', 2],
    ['def f(x:\n    return 1\n', 1],
    ['x = (1,\ny = 2\n', 1],
    ['def f():\nreturn 1\n', 2],
    ['if True:\npass\n', 2],
    ['def f():\n    x = 1\n      y = 2\n', 3],
    ['x = 1\n  y = 2\n', 2],
    ['def f():\n    pass\n  return 2\n', 3],
    ['print "hello"\n', 1],
    ['def f():\n    return 1\n\n\nfor i in range(3)\n    print(i)\n', 5],
  ])('reports the line of a syntax error: %j', async (code, line) => {
    const { errors } = await analysePython(code);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]!.line).toBe(line);
  });

  it('checks the entry function named like the File Name', async () => {
    expect(await checkFunctionCode('get_weather.py', 'def get_weather():\n    return 1\n')).toEqual([]);
    expect(await checkFunctionCode('get_weather', 'def other():\n    return 1\n')).toEqual([
      'The code must define a top-level function named get_weather (the File Name without .py), for example: def get_weather(...):',
    ]);
    expect((await checkFunctionCode('f', 'def f(:\n  pass\n'))[0]).toMatch(/^Syntax error on line 1, column \d+: /);
  });
});

describe('function templates', () => {
  it('are the empty canvas, example, weather and SSML, each valid with its entry function', async () => {
    expect(functionTemplates.map((t) => t.id)).toEqual(['empty', 'example', 'weather', 'ssml']);
    for (const template of functionTemplates) {
      expect(await checkFunctionCode(template.name, template.code), template.id).toEqual([]);
    }
  });

  it.skipIf(!hasPython)('compile and run in python 3 (the network-free ones)', () => {
    for (const template of functionTemplates) {
      execFileSync('python3', ['-c', 'import sys; compile(sys.stdin.read(), "t.py", "exec")'], { input: template.code });
    }
    const run = (id: string, call: string) =>
      execFileSync('python3', ['-c', `import json, sys\nexec(sys.stdin.read())\nprint(json.dumps(${call}))`], {
        input: functionTemplates.find((t) => t.id === id)!.code,
      }).toString();
    expect(JSON.parse(run('empty', 'my_function("hi")'))).toBe('hi');
    expect(JSON.parse(run('example', 'split_bill(100, people=4, tip_percent=20)'))).toEqual({ tip: 20, total_with_tip: 120, each_person_pays: 30, people: 4 });
    expect(JSON.parse(run('ssml', 'speak_with_emphasis("It costs 5 & more. Really", emphasis="5", rate="slow")'))).toBe(
      '<speak><prosody rate="85%"><s>It costs <emphasis level="strong">5</emphasis> &amp; more</s><break time="300ms"/><s>Really</s><break time="300ms"/></prosody></speak>',
    );
    // The weather template needs the internet; here it only has to load and be callable.
    expect(run('weather', 'callable(get_weather)').trim()).toBe('true');
  });
});
