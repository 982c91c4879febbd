// Hot-path queries compiled once and re-bound with new parameters. Kysely compiles a query
// builder to SQL on every call (~0.1-0.4 ms for the joined reads here); these reads run on every
// authenticated request and every refresh. Compilation applies the connection's plugins (such as
// DB_NAMESPACE), so the cache is keyed by the root Kysely instance; a transaction of that
// instance may execute the result.
import { CompiledQuery, type Compilable, type RawBuilder } from 'kysely';
import type { Executor } from './users';

type Slot = number; // index into the call's parameters, or -1 for a constant of the query

export function prepared<P extends unknown[], R>(build: (db: Executor, ...params: P) => Compilable<R> | RawBuilder<R>) {
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
    const result = await executor.executeQuery(CompiledQuery.raw(query.sql, parameters) as CompiledQuery<R>);
    return result.rows;
  };
}
