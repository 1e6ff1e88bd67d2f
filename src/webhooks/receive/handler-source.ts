import { ConsoleReporter } from '../../internal/console-reporter.js';
import type { HandleOptions, WebhookHandler } from './handler.js';
import { jsonResponse, type WebhookRequest, type WebhookResponse } from './request.js';

/**
 * What every adapter takes: a {@link WebhookHandler}, or a function that builds one on first use.
 * The function form lets a framework that imports route modules at build time (Next.js "Collecting
 * page data") load the route without the secret in its environment.
 */
export type HandlerSource = WebhookHandler | (() => WebhookHandler);

/** An adapter's view of its handler: built on first use and kept; a factory that throws is retried at the next request. */
export interface ResolvedSource {
  /** The handler, built now if it was not yet; throws what the factory threw. */
  get(): WebhookHandler;
  /** Handles one request; a factory that throws is answered 500 and reported on the console. */
  handle(request: WebhookRequest, options?: HandleOptions): Promise<WebhookResponse>;
}

/** Resolves an adapter's {@link HandlerSource}. */
export function resolveSource(source: HandlerSource): ResolvedSource {
  let built: WebhookHandler | undefined = typeof source === 'function' ? undefined : source;
  const reporter = new ConsoleReporter();
  const get = (): WebhookHandler => {
    built ??= (source as () => WebhookHandler)();
    return built;
  };
  return {
    get,
    async handle(request, options) {
      let handler: WebhookHandler;
      try {
        handler = get();
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        reporter.report(`[messaging-gateway-sdk] the WebhookHandler factory failed: ${why}`);
        return jsonResponse(500, { error: 'handler_unavailable' });
      }
      return handler.handle(request, options);
    },
  };
}
