import type { ServerResponse } from 'node:http';
import type { Deliverer } from './deliveries.js';
import { asObject, fail, json } from './http-utils.js';
import type { RouteRequest } from './routes-v2.js';
import type { FakeState, FakeV3Settings } from './state.js';

/** API v3: one webhook address and four switches (spec: API v3 webhook settings). */
export async function routeV3(
  req: RouteRequest,
  res: ServerResponse,
  state: FakeState,
  deliverer: Deliverer,
): Promise<boolean> {
  if (req.segments[0] !== 'webhooks' || req.segments.length !== 1) return false;
  if (req.method === 'GET') {
    json(res, 200, state.v3Settings);
    return true;
  }
  if (req.method !== 'PATCH') return false;
  const body = asObject(req.body) ?? {};
  const uri = body.webhooksUri;
  // spec: Limits — webhooksUri is at most 200 characters
  if (typeof uri !== 'string' || uri.length > 200 || !URL.canParse(uri)) {
    fail(res, 400, 'uriNotValid', 'Provided URI is not valid URI');
    return true;
  }
  // spec rule 1: the service POSTs { test: true } to the address, which must answer 200
  const status = await deliverer.probe(uri);
  if (status !== 200) {
    fail(res, 400, 'testPostNotPassed', 'URI does not return 200 OK on test request', {
      responseCode: status,
    });
    return true;
  }
  const switches = asObject(body.subscriptions) ?? {};
  const subscriptions = { ...state.v3Settings.subscriptions };
  for (const key of Object.keys(subscriptions) as (keyof FakeV3Settings['subscriptions'])[]) {
    if (typeof switches[key] === 'boolean') subscriptions[key] = switches[key];
  }
  state.v3Settings = { webhooksUri: uri, subscriptions };
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end('ok'); // spec rule 3: the word ok
  return true;
}
