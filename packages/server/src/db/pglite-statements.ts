import { createHash } from 'node:crypto';
import { parse, protocol, type PGlite, type QueryOptions, type Results } from '@electric-sql/pglite';

/** Named statements kept; past that, new query texts take PGlite's ordinary path. */
const MAX_STATEMENTS = 500;

interface Prepared {
  name: string;
  paramTypes: number[];
}

/**
 * PGlite's `query()` with parameters, as named prepared statements: each query text is parsed
 * and planned once, and every later call sends Bind/Describe/Execute/Sync in a single protocol
 * round (PGlite's own `query()` makes five rounds and re-plans every time, ~4× slower for the
 * small reads a request makes). Results are read by PGlite's own parser, errors are its own
 * DatabaseErrors, and calls wait for PGlite's transaction and query locks like `query()` does.
 * Texts without parameters (migrations, DDL, several statements) take PGlite's path.
 */
export function preparedQueries(client: PGlite) {
  const { serialize } = protocol;
  const statements = new Map<string, Promise<Prepared>>();
  const names = new Set<string>();

  const prepare = async (text: string): Promise<Prepared> => {
    const name = `p_${createHash('sha1').update(text).digest('base64url')}`;
    const { messages } = await client.execProtocol(Buffer.concat([serialize.parse({ name, text }), serialize.describe({ type: 'S', name }), serialize.sync()]));
    return { name, paramTypes: parse.parseDescribeStatementResults(messages) };
  };

  const run = async (statement: Prepared, params: unknown[], options?: QueryOptions): Promise<Results> => {
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = client.serializers[statement.paramTypes[i] ?? 0];
      return serializer ? serializer(value) : String(value);
    });
    const { messages } = await client.execProtocol(
      Buffer.concat([serialize.bind({ statement: statement.name, values }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()]),
    );
    return parse.parseResults(messages, client.parsers, { rowMode: options?.rowMode })[0]!;
  };

  return async function query(text: string, params?: unknown[], options?: QueryOptions): Promise<Results> {
    const plain = !params || params.length === 0 || options?.blob || options?.paramTypes || options?.serializers;
    if (plain || (!statements.has(text) && names.size >= MAX_STATEMENTS)) {
      // PGlite's path; the parsers drizzle sends are already the instance's own (see client.ts).
      return client.query(text, params, options && { ...options, parsers: undefined });
    }
    return client._runExclusiveTransaction(() =>
      client._runExclusiveQuery(async () => {
        let statement = statements.get(text);
        if (!statement) {
          statement = prepare(text);
          statements.set(text, statement);
          statement.catch(() => statements.delete(text));
        }
        const prepared = await statement;
        names.add(prepared.name);
        return run(prepared, params, options);
      }),
    );
  };
}
