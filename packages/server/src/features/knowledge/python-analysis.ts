import type { PythonAnalysis } from '../../lib/python-syntax.js';
import { ExtractError } from './extract.js';
import type { ExtractPool } from './extract-pool.js';

/** How long a python parse may take in the extraction pool; tree-sitter's error recovery on 100 KB of hostile code took 12 s. */
export const PYTHON_PARSE_TIMEOUT_MS = 10_000;

/**
 * Parses python in the extraction pool: tree-sitter on the request thread would hold the portal
 * (12 s for 100 KB of `def (:` lines). A parse past its time, or one that broke the
 * parser, is an error of the code, not of the server.
 */
export async function analysePythonInPool(pool: ExtractPool, code: string): Promise<PythonAnalysis> {
  let result;
  try {
    result = await pool.run({ op: 'python', code }, { timeoutMs: PYTHON_PARSE_TIMEOUT_MS });
  } catch (err) {
    // Past its time (ExtractError), or the parser trapped (its thread is replaced).
    return { errors: [{ line: 1, column: 1, detail: err instanceof ExtractError ? 'the code is too complex to check' : 'the code could not be parsed' }], functions: [] };
  }
  if (!('python' in result)) throw new Error('the extraction thread answered a python job with something else');
  return result.python;
}
