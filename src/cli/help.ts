/** The help text of the bin and of each command. */
export const HELP = {
  main: `Usage: messaging-gateway <command> [options]

Commands:
  fake-gateway   run a fake messaging gateway on 127.0.0.1 for local development and tests
  trigger        POST a valid webhook delivery of one kind to your receiver
  decode         decode a webhook delivery (a file or standard input) and print it, or its issues

Run \`messaging-gateway <command> --help\` for a command's options.`,

  'fake-gateway': `Usage: messaging-gateway fake-gateway [--port N] [--token T] [--api-key K] [--crm-key K] [--repeats] [--json] [--quiet]

Runs a fake of the gateway (API v2 and v3) on 127.0.0.1 until stopped (Ctrl-C), and prints its
address, token and API key, then one line per request it answers.

Options:
  --port N       port on 127.0.0.1 (default: a free port)
  --token T      the v2 token it accepts (default: fake-gateway-token)
  --api-key K    the v3 API key it accepts (default: fake-gateway-api-key)
  --crm-key K    v3 deliveries carry Authorization: Bearer K
  --repeats      deliver every webhook twice, as the service may
  --json         print JSON lines: first { url, token, apiKey }, then { method, path, status } per request
  --quiet        print only the first line, not one per request
  --help         show this help`,

  trigger: `Usage: messaging-gateway trigger <kind> --to <url> [--set path=value]... [--json]

Builds a valid delivery of <kind> (defaults filled in) and POSTs it to <url>, then prints the
answer. Exits 0 when the answer is 2xx, 1 otherwise.

<kind> is a v2 event (message.add, message.status_update, channel.qr_update, ...) or a v3 kind
(v3.messages, v3.statuses, v3.messagesAndStatuses, v3.createContact, v3.createDeal,
v3.channelsUpdates, v3.templateStatus, v3.test).

Options:
  --to URL            the receiver, query included (e.g. http://127.0.0.1:3000/hooks?secret=s)
  --set path=value    set a field to a string, e.g. --set data.0.text=Hi
  --set path:=json    set a field to a JSON value, e.g. --set data.0.timestamp:=1735689600000
  --seed S            the same ids on every run
  --crm-key K         send Authorization: Bearer K (v3 deliveries)
  --json              print { status, ok, body, sent } as JSON
  --help              show this help
Run \`messaging-gateway trigger --list\` for every kind.`,

  decode: `Usage: messaging-gateway decode [file] [--json]

Decodes a webhook delivery of API v2 or v3 from <file>, or from standard input when no file is
given, as parseWebhook does. Prints its kind and items, or every issue by path.
Exits 0 when it decodes, 1 when it does not.

Options:
  --json   print { ok, api, kind, items } or { ok, issues } as JSON
  --help   show this help`,
} as const;
