// Hot-path queries compiled once and re-bound with new parameters. Kysely compiles a query
// builder to SQL on every call (~0.1-0.4 ms for the joined reads here); these reads run on every
// authenticated request and every refresh. Compilation applies the connection's plugins (such as
// DB_NAMESPACE), so the cache is keyed by the root Kysely instance; a transaction of that
// instance may execute the result.
import { CompiledQuery, type Compilable, type RawBuilder } from 'kysely';
import { executeNamed } from '@keyzone/db';
import type { Executor } from './users';

type Slot = number; // index into the call's parameters, or -1 for a constant of the query

let statements = 0;

export function prepared<P extends unknown[], R>(build: (db: Executor, ...params: P) => Compilable<R> | RawBuilder<R>) {
  // One name per prepared() (they are module-level constants), one SQL text per name and pool.
  const name = `kz_auth_prepared_${++statements}`;
  const cache = new WeakMap<object, { query: CompiledQuery<R>; slots: Slot[] }>();
  return async (root: Executor, executor: Executor, ...params: P): Promise<R[]> => {
    let entry = cache.get(root);
    if (!entry) {
      const sentinels = params.map((_, i) => `\u0000kz-param-${i}`) as unknown as P;
      const built = build(root, ...sentinels);
      const query = 'isRawBuilder' in built ? built.compile(root) : built.compile();
      const slots = query.parameters.map((value) => (sentinels as unknown[]).indexOf(value));
      // Every call parameter must come through as a bound value (never inlined or transformed),
      // or re-binding would silently send a placeholder.
      if (params.some((_, i) => !slots.includes(i))) throw new Error('prepared: a parameter was not bound as a value');
      entry = { query, slots };
      cache.set(root, entry);
    }
    const { query, slots } = entry;
    const parameters = query.parameters.map((value, k) => {
      const slot = slots[k] ?? -1;
      return slot >= 0 ? params[slot] : value;
    });
    const compiled = CompiledQuery.raw(query.sql, parameters) as CompiledQuery<R>;
    // Outside a transaction, on PostgreSQL, as a named statement: PostgreSQL then parses and plans it once per
    // pooled connection instead of on every call (planning these joins costs more than running them).
    if (executor === root) return executeNamed(root, name, compiled);
    return (await executor.executeQuery(compiled)).rows;
  };
}
