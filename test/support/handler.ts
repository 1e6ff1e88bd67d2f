import type { GatewayError } from '../../src/core/errors.js';
import type { ErrorContext } from '../../src/webhooks/receive/events.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import type { WebhookHandlerOptions } from '../../src/webhooks/receive/options.js';

/** A handler with a secret whose errors are collected rather than logged. */
export function collecting(options: WebhookHandlerOptions = {}) {
  const hooks = new WebhookHandler({ secret: 'hook-secret', ...options });
  const errors: [GatewayError, ErrorContext][] = [];
  hooks.on('error', (error, context) => errors.push([error, context]));
  return { hooks, errors };
}

/** The address a delivery to a `collecting` handler goes to. */
export const HOOK_URL = '/hooks?secret=hook-secret';

/** Resolves on the next turns of the event loop, so background work can run. */
export const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
