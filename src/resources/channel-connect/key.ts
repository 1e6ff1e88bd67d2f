/**
 * The name of the WebhookHandler method that starts a `channels.connect` flow. The flow's code
 * lives with the handler (it runs only where webhooks are received), so a script that only sends
 * does not ship it. A string rather than a symbol: not one byte more for that script.
 */
export const CONNECT = 'connectChannel';
