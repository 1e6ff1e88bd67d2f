import { GatewayError } from './errors.js';

/**
 * `error` with its `requestSent` set to what the call knows. The HTTP core decides it once per
 * call (whether any attempt may have left this process), whichever step built the error: a
 * token function's failure after a 401 comes after a request that did reach the service.
 */
export function withRequestSent<T>(error: T, sent: boolean): T {
  if (error instanceof GatewayError && error.requestSent !== sent)
    Object.assign(error, { requestSent: sent });
  return error;
}
