import type { ServerResponse } from 'node:http';
import { asObject, fail, json } from './http-utils.js';
import type { RouteRequest } from './routes-v2.js';
import type { StandInState } from './state.js';

/** API v3: one webhook address and four switches (spec: API v3 webhook settings). */
export async function routeV3(req: RouteRequest, res: ServerResponse, state: StandInState): Promise<boolean> {
  if (req.segments[0] !== 'webhooks' || req.segments.length !== 1) return false;
  if (req.method === 'GET') {
    json(res, 200, state.v3Settings);
    return true;
  }
  if (req.method !== 'PATCH') return false;
  const body = asObject(req.body) ?? {};
  const uri = body.webhooksUri;
  if (typeof uri !== 'string' || uri.length > 200 || !URL.canParse(uri)) {
    fail(res, 400, 'uriNotValid', 'Provided URI is not valid URI');
    return true;
  }
  // Spec rule 1: the service POSTs { test: true } to the address, which must answer 200.
  const status = await fetch(uri, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset-utf-8' },
    body: JSON.stringify({ test: true }),
    signal: AbortSignal.timeout(30_000),
  }).then(
    async (r) => {
      await r.body?.cancel();
      return r.status;
    },
    () => 0,
  );
  if (status !== 200) {
    fail(res, 400, 'testPostNotPassed', 'URI does not return 200 OK on test request', {
      responseCode: status,
    });
    return true;
  }
  state.v3Settings = {
    webhooksUri: uri,
    subscriptions: {
      ...state.v3Settings.subscriptions,
      ...(asObject(body.subscriptions) as Record<string, boolean>),
    },
  };
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end('ok');
  return true;
}
