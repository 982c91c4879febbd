// DB_NAMESPACE support: query code always names `auth.users`, `auth.sessions`, ...; with a namespace
// the plugin rewrites every table in schema `auth` to `auth.<namespace>_<table>` (the names
// migrateAuth({ namespace }) creates). Works for the query builder and for sql.table('auth.x') in raw
// SQL; plain text inside sql`...` is not rewritten.
import { IdentifierNode, OperationNodeTransformer } from 'kysely';
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  SchemableIdentifierNode,
  UnknownRow,
} from 'kysely';

const NAMESPACE = /^[a-z][a-z0-9_]{0,30}$/;

/** Throws unless `namespace` is a safe lowercase SQL identifier fragment. */
export function assertValidNamespace(namespace: string): void {
  if (!NAMESPACE.test(namespace)) {
    throw new Error(
      `Invalid auth namespace "${namespace}": use lowercase letters, digits and _ (start with a letter, max 31 characters)`,
    );
  }
}

class AuthNamespaceTransformer extends OperationNodeTransformer {
  constructor(private readonly prefix: string) {
    super();
  }

  protected override transformSchemableIdentifier(node: SchemableIdentifierNode): SchemableIdentifierNode {
    const transformed = super.transformSchemableIdentifier(node);
    if (transformed.schema?.name !== 'auth' || transformed.identifier.name.startsWith(this.prefix)) {
      return transformed;
    }
    return { ...transformed, identifier: IdentifierNode.create(this.prefix + transformed.identifier.name) };
  }
}

export class AuthNamespacePlugin implements KyselyPlugin {
  readonly #transformer: AuthNamespaceTransformer;

  constructor(namespace: string) {
    assertValidNamespace(namespace);
    this.#transformer = new AuthNamespaceTransformer(`${namespace}_`);
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.#transformer.transformNode(args.node, args.queryId);
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
