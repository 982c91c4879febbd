import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { Deps } from '../deps';
import type { Caller } from '../services/access/caller';
import type { PermissionFlag } from '../services/directory/permission-objects';

// A route is data: method, path, zod schemas for its input and responses, examples, and a handler. The same
// objects are mounted on Express (http/mount.ts) and turned into the OpenAPI document (openapi.ts), so a route
// cannot be served without being documented, nor documented with a schema it does not validate against.

export type HttpMethod = 'get' | 'post' | 'put' | 'delete';

export interface ResponseSpec {
  description: string;
  /** zod schema of the body; checked against every 2xx body under NODE_ENV=test. */
  schema?: z.ZodType;
  example?: unknown;
  /** Content type when not JSON (e.g. 'text/dns' for a zone export). */
  contentType?: string;
  /** Response headers worth documenting (e.g. Set-Cookie on login). */
  headers?: Record<string, { description: string; example?: string }>;
}

export interface Reply {
  status?: number;
  body: unknown;
}

export interface HandlerContext {
  deps: Deps;
  req: Request;
  res: Response;
}

export interface AuthedHandlerContext extends HandlerContext {
  caller: Caller;
}

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

interface RouteBase<P, Q, B> {
  method: HttpMethod;
  /** Express path syntax: '/user/:id'. */
  path: string;
  summary: string;
  description?: string;
  /** OpenAPI tags; defaults to the family's name. */
  tags?: string[];
  params?: P;
  query?: Q;
  body?: B;
  bodyExample?: unknown;
  responses: Record<number, ResponseSpec>;
  /**
   * 'generic' keeps the NicTool 400 text ("Invalid request payload input") in every environment (POST /session);
   * 'detailed' (default) names the failing fields outside production.
   */
  badRequest?: 'generic' | 'detailed';
}

export interface PublicRoute<P = unknown, Q = unknown, B = unknown> extends RouteBase<P, Q, B> {
  auth: 'none';
  handler(input: { params: Out<P>; query: Out<Q>; body: Out<B> }, ctx: HandlerContext): Promise<Reply | void>;
}

export interface SessionRoute<P = unknown, Q = unknown, B = unknown> extends RouteBase<P, Q, B> {
  auth: 'session';
  /**
   * The flags of NicTool's permission objects this change needs (services/directory/permission-objects.ts),
   * checked once the input is valid and before the handler runs; a function when they depend on the input.
   */
  permission?: readonly PermissionFlag[] | ((input: { params: Out<P>; query: Out<Q>; body: Out<B> }, caller: Caller) => readonly PermissionFlag[]);
  handler(input: { params: Out<P>; query: Out<Q>; body: Out<B> }, ctx: AuthedHandlerContext): Promise<Reply | void>;
}

export type RouteSpec<P = unknown, Q = unknown, B = unknown> = PublicRoute<P, Q, B> | SessionRoute<P, Q, B>;

// Any route, with its input types erased, for lists and the mounter.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteSpec<any, any, any>;

/** Identity helper that infers the handler's input types from the schemas. */
export function defineRoute<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(route: RouteSpec<P, Q, B>): AnyRoute {
  return route as AnyRoute;
}

/** A family of routes: one file under routes/, one OpenAPI tag. */
export interface RouteFamily {
  name: string;
  description: string;
  routes: AnyRoute[];
}
