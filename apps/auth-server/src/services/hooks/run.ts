// Auth hooks (issue 29, GoTrue's HOOK_<NAME>_*): runHook sends a hook its payload over the configured transport
// and returns the hook's JSON object. A hook that answers `{"error": {"http_code", "message"}}` fails the request
// with that status and message (as GoTrue passes it on); a hook that cannot be reached, times out or answers
// anything but a JSON object fails it too: callers never go on without the hook's answer. The log names the
// hook and why, never a secret.
import type { HookName, HookTarget } from '@keyzone/config';
import type { Deps } from '../../deps';
import { ApiError, ErrorCode, internalError } from '../../errors';
import { callHttpHook } from './http-hook';
import { callPostgresHook } from './postgres-hook';

export type HookDeps = Pick<Deps, 'config' | 'db' | 'log' | 'clock'>;
export type HookOutput = Record<string, unknown>;

export function hookEnabled(deps: Pick<Deps, 'config'>, name: HookName): boolean {
  return deps.config.hooks[name] !== undefined;
}

function describe(target: HookTarget): string {
  if (target.transport === 'postgres') return `pg-functions://postgres/${target.schema}/${target.functionName}`;
  const url = new URL(target.url);
  return `${url.origin}${url.pathname}`;
}

export async function runHook(deps: HookDeps, name: HookName, payload: Record<string, unknown>): Promise<HookOutput> {
  const target = deps.config.hooks[name];
  if (!target) throw internalError(`the ${name} hook is not configured`);
  const timeoutMs = deps.config.hooks.timeoutSeconds * 1000;
  let output: unknown;
  try {
    output = target.transport === 'http'
      ? await callHttpHook(target, payload, { timeoutMs })
      : await callPostgresHook(deps.db, target, payload, { timeoutMs });
  } catch (err) {
    deps.log.warn({ hook: name, uri: describe(target), err: (err as Error).message }, 'auth hook failed');
    if (err instanceof ApiError) throw err;
    throw internalError(`Error running hook URI: ${describe(target)}`, err);
  }
  if (output === null || typeof output !== 'object' || Array.isArray(output)) {
    deps.log.warn({ hook: name, uri: describe(target) }, 'auth hook answered something other than a JSON object');
    throw internalError('Hook returned an invalid response');
  }
  const hookError = (output as { error?: unknown }).error;
  if (hookError !== undefined && hookError !== null) {
    const { http_code: httpCode, message } = hookError as { http_code?: unknown; message?: unknown };
    const status = typeof httpCode === 'number' && Number.isInteger(httpCode) && httpCode >= 400 && httpCode <= 599 ? httpCode : 500;
    const text = typeof message === 'string' && message.trim() !== '' ? message : 'Hook rejected the request';
    deps.log.info({ hook: name, status }, 'auth hook answered an error');
    throw new ApiError(status, ErrorCode.unknown, text);
  }
  return output as HookOutput;
}

/** A `decision` hook (MFA and password verification attempts): "reject" ends the request with the hook's message. */
export function isRejection(output: HookOutput): { message?: string } | undefined {
  if (output.decision === 'reject') return { message: typeof output.message === 'string' && output.message !== '' ? output.message : undefined };
  if (output.decision !== undefined && output.decision !== 'continue') throw internalError('Hook returned an invalid decision');
  return undefined;
}
