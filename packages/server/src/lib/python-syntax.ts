import { createRequire } from 'node:module';
import { Language, Parser, type Node } from 'web-tree-sitter';
import type { TFunctionParameter } from '@persona/contract';

/**
 * Python syntax checking with tree-sitter's python grammar (WASM, no native build): the first
 * syntax error with its line and column, and the top-level functions a file defines.
 */

export interface PythonSyntaxError {
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
  detail: string;
}

export interface PythonFunctionInfo {
  name: string;
  /** 1-based line of the def. */
  line: number;
  docstring: string;
  parameters: TFunctionParameter[];
}

export interface PythonAnalysis {
  errors: PythonSyntaxError[];
  functions: PythonFunctionInfo[];
}

const require = createRequire(import.meta.url);
let parserPromise: Promise<Parser> | null = null;

async function loadParser(): Promise<Parser> {
  await Parser.init();
  const language = await Language.load(require.resolve('tree-sitter-python/tree-sitter-python.wasm'));
  const parser = new Parser();
  parser.setLanguage(language);
  return parser;
}

/** The parser, loaded once (about 30 ms) and reused. */
export function getPythonParser(): Promise<Parser> {
  parserPromise ??= loadParser().catch((err: unknown) => {
    parserPromise = null;
    throw err;
  });
  return parserPromise;
}

const COMPOUND = new Set(['function_definition', 'class_definition', 'decorated_definition', 'if_statement', 'for_statement', 'while_statement', 'try_statement', 'with_statement', 'match_statement']);
const BRACKETS = new Set(['argument_list', 'parameters', 'list', 'tuple', 'dictionary', 'set', 'parenthesized_expression', 'subscript', 'generator_expression', 'list_comprehension', 'dictionary_comprehension', 'set_comprehension']);

/**
 * An error that starts a line in the middle of an expression begun on an earlier line, outside any
 * brackets: python stops at the end of that earlier line (e.g. `total = a +`), so report it there.
 */
function interruptedLine(node: Node, source: string): PythonSyntaxError | null {
  const row = node.startPosition.row;
  const lines = source.split('\n');
  if ((lines[row] ?? '').slice(0, node.startPosition.column).trim() !== '') return null;
  // The simple statement the error interrupts: it must have started on an earlier line.
  let statement: Node | null = null;
  for (let p = node.parent; p && p.type !== 'module' && p.type !== 'block'; p = p.parent) {
    if (BRACKETS.has(p.type)) return null;
    statement = p;
  }
  if (!statement || COMPOUND.has(statement.type) || statement.startPosition.row >= row) return null;
  let previous = row - 1;
  while (previous > 0 && (lines[previous] ?? '').trim() === '') previous -= 1;
  const text = (lines[previous] ?? '').trimEnd(); // not /\s+$/: quadratic over long runs of spaces
  return { line: previous + 1, column: text.length + 1, detail: 'the line ends in the middle of an expression' };
}

function firstErrors(root: Node, source: string, limit = 5): PythonSyntaxError[] {
  const found: PythonSyntaxError[] = [];
  const visit = (node: Node) => {
    if (found.length >= limit) return;
    if (node.isMissing) {
      found.push({ line: node.startPosition.row + 1, column: node.startPosition.column + 1, detail: `missing "${node.type}"` });
      return;
    }
    if (node.isError) {
      const previous = interruptedLine(node, source);
      if (previous) {
        found.push(previous);
        return;
      }
      const text = source.slice(node.startIndex, Math.min(node.endIndex, node.startIndex + 40)).split('\n')[0]!.trim();
      found.push({ line: node.startPosition.row + 1, column: node.startPosition.column + 1, detail: text ? `unexpected "${text}"` : 'invalid syntax' });
      return;
    }
    if (!node.hasError) return;
    for (const child of node.children) if (child) visit(child);
  };
  visit(root);
  return found.sort((a, b) => a.line - b.line || a.column - b.column);
}

/** The column of the line `row` where its first non-blank character is. */
function lineIndent(source: string, lineStarts: number[], row: number): number {
  const start = lineStarts[row] ?? 0;
  let i = start;
  while (source[i] === ' ' || source[i] === '\t') i += 1;
  return i - start;
}

/** True when the node is the first thing on its line. */
function startsLine(node: Node, source: string, lineStarts: number[]): boolean {
  return lineIndent(source, lineStarts, node.startPosition.row) === node.startPosition.column;
}

/**
 * What tree-sitter's error-tolerant grammar accepts but python does not: blocks without an
 * indented body, statements whose indentation does not match their block, and python 2 statements.
 */
function structuralErrors(root: Node, source: string): PythonSyntaxError[] {
  const lineStarts = [0];
  for (let i = 0; i < source.length; i += 1) if (source[i] === '\n') lineStarts.push(i + 1);
  const found: PythonSyntaxError[] = [];
  const at = (node: Node, detail: string) => found.push({ line: node.startPosition.row + 1, column: node.startPosition.column + 1, detail });

  const checkStatements = (statements: Node[], indent: number) => {
    for (const statement of statements) {
      if (!startsLine(statement, source, lineStarts)) continue;
      const column = statement.startPosition.column;
      if (column > indent) at(statement, 'unexpected indent');
      else if (column < indent) at(statement, 'unindent does not match any outer indentation level');
    }
  };

  const visit = (node: Node) => {
    if (node.type === 'print_statement') at(node, "Missing parentheses in call to 'print'. Did you mean print(...)?");
    else if (node.type === 'exec_statement') at(node, "Missing parentheses in call to 'exec'. Did you mean exec(...)?");
    if (node.type === 'module') {
      checkStatements(node.namedChildren.filter((c): c is Node => c !== null && c.type !== 'comment'), 0);
    } else if (node.type === 'block') {
      const statements = node.namedChildren.filter((c): c is Node => c !== null && c.type !== 'comment');
      const header = node.parent;
      const headerIndent = header ? lineIndent(source, lineStarts, header.startPosition.row) : 0;
      const firstOnLine = statements.find((c) => startsLine(c, source, lineStarts));
      if (statements.length === 0) {
        found.push({ line: (header?.startPosition.row ?? 0) + 2, column: 1, detail: 'expected an indented block' });
      } else if (firstOnLine && firstOnLine.startPosition.column <= headerIndent) {
        at(firstOnLine, 'expected an indented block');
      } else if (firstOnLine) {
        checkStatements(statements, firstOnLine.startPosition.column);
      }
    }
    for (const child of node.namedChildren) if (child) visit(child);
  };
  visit(root);
  return found;
}

function unquote(literal: string): string {
  const match = /^[rRuUbB]{0,2}("""|'''|"|')([\s\S]*)\1$/.exec(literal.trim());
  return (match ? match[2]! : literal).trim().replace(/\n[ \t]+/g, '\n');
}

function parameterOf(node: Node): TFunctionParameter | null {
  const text = (n: Node | null) => (n ? n.text : null);
  switch (node.type) {
    case 'identifier':
      return node.text === 'self' ? null : { name: node.text, type: null, required: true, default: null };
    case 'typed_parameter': {
      const name = node.namedChildren.find((c) => c?.type === 'identifier');
      if (!name) return null; // *args: T / **kwargs: T
      return { name: name.text, type: text(node.childForFieldName('type')), required: true, default: null };
    }
    case 'default_parameter':
      return { name: text(node.childForFieldName('name')) ?? '', type: null, required: false, default: text(node.childForFieldName('value')) };
    case 'typed_default_parameter':
      return {
        name: text(node.childForFieldName('name')) ?? '',
        type: text(node.childForFieldName('type')),
        required: false,
        default: text(node.childForFieldName('value')),
      };
    default:
      return null; // *args, **kwargs, /, *
  }
}

function functionInfo(def: Node): PythonFunctionInfo | null {
  const name = def.childForFieldName('name');
  if (!name) return null;
  const body = def.childForFieldName('body');
  const first = body?.namedChildren[0];
  const docNode = first?.type === 'expression_statement' && first.namedChildren[0]?.type === 'string' ? first.namedChildren[0] : null;
  const parameters = (def.childForFieldName('parameters')?.namedChildren ?? [])
    .map((p) => (p ? parameterOf(p) : null))
    .filter((p): p is TFunctionParameter => p !== null && p.name !== '');
  return { name: name.text, line: def.startPosition.row + 1, docstring: docNode ? unquote(docNode.text) : '', parameters };
}

/** Parses python source: its syntax errors (first ones, in order) and its top-level functions. */
export async function analysePython(source: string): Promise<PythonAnalysis> {
  const parser = await getPythonParser();
  const tree = parser.parse(source);
  if (!tree) return { errors: [{ line: 1, column: 1, detail: 'the code could not be parsed' }], functions: [] };
  try {
    const root = tree.rootNode;
    const errors = [...(root.hasError ? firstErrors(root, source) : []), ...structuralErrors(root, source)]
      .sort((a, b) => a.line - b.line || a.column - b.column)
      .slice(0, 5);
    const functions: PythonFunctionInfo[] = [];
    for (const child of root.namedChildren) {
      if (!child) continue;
      const def = child.type === 'decorated_definition' ? child.childForFieldName('definition') : child;
      if (def?.type === 'function_definition') {
        const info = functionInfo(def);
        if (info) functions.push(info);
      }
    }
    return { errors, functions };
  } finally {
    tree.delete();
  }
}
