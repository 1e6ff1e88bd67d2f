// The help of the bin and of each command. It imports nothing: `--help` loads no command.

/** The help lines of the options every command for the service takes. */
const SERVICE_HELP = `  --token T      API v2 token (default: GATEWAY_TOKEN)
  --api-key K    API v3 key (default: GATEWAY_API_KEY)
  --base-url U   the service's address (default: GATEWAY_BASE_URL)
  --json         print one JSON document
  --help         show this help`;

/** The help text of the bin and of each command. */
export const HELP = {
  main: `Usage: messaging-gateway <command> [options]

Commands for the service (credentials: GATEWAY_TOKEN, GATEWAY_API_KEY, GATEWAY_BASE_URL, or
--token, --api-key, --base-url):
  send           send a message
  channels       list, get, delete or connect the account's channels
  webhooks       list, ensure or remove the API v2 subscriptions
  v3             get or set the API v3 webhook address and switches

Commands for local development:
  fake-gateway   run a fake messaging gateway on 127.0.0.1 for local development and tests
  trigger        POST a valid webhook delivery of one kind to your receiver
  replay         POST saved deliveries (e.g. from fake-gateway --record) to your receiver again
  decode         decode a webhook delivery (a file or standard input) and print it, or its issues
  postgres       create the tables of messaging-gateway-sdk/postgres (postgres migrate), or print
                 their SQL for your migration tool (postgres sql)

Other commands:
  completion     print a completion script for bash, zsh or fish

Every command prints text, or one JSON document with --json, and exits 0 when done, 1 when the
service or the receiver said no, 2 on a usage error.
Run \`messaging-gateway help <command>\` (or \`<command> --help\`) for a command's options and
examples; --version prints the version.

Examples:
  $ messaging-gateway fake-gateway
  $ messaging-gateway send --channel <id> --to whatsapp:79001234567 --text "Hello"
  $ messaging-gateway help send`,

  send: `Usage: messaging-gateway send --channel <id> --to <chat_type>:<chat_id or @username> (--text T | --file URL) [--wait delivered --listen <port>] [--json]

Sends one message (POST /v2/messages) and prints its request_id. With --wait, also waits for its
status: a receiver on 127.0.0.1:<port> is subscribed (with a secret made for this run) to
message.status_update before the send, and removed at the end. Exits 0 when the status is
reached, 1 when the message failed (the reason printed) or --timeout passed.

Options:
  --channel ID       the channel to send through
  --to R             the recipient: whatsapp:79001234567, telegram:@username, ...
  --text T           the text
  --file URL         an attachment by its public URL
  --wait S           wait for this status or a later one: sent, delivered or read
  --listen PORT      with --wait: the receiver's port on 127.0.0.1 (0: a free one)
  --public-url URL   with --wait: the address the service delivers to when it cannot reach
                     this machine (a tunnel to PORT)
  --timeout S        with --wait: give up after S seconds (default: 60)
${SERVICE_HELP}

Examples:
  $ messaging-gateway send --channel <id> --to whatsapp:79001234567 --text "Your order has shipped"
  $ messaging-gateway send --channel <id> --to telegram:@customer --file https://example.com/a.pdf
  $ messaging-gateway send --channel <id> --to whatsapp:79001234567 --text Hi --wait delivered --listen 0`,

  channels: `Usage: messaging-gateway channels list | get <id> | delete <id> [--delete-chats] | connect ... [--json]

The account's channels: one line each (id, transport, status, name or the phone's last digits).
\`channels connect\` connects a new channel; run \`messaging-gateway channels connect --help\`.

Options:
  --delete-chats   with delete: also delete the channel's chats
${SERVICE_HELP}

Examples:
  $ messaging-gateway channels list
  $ messaging-gateway channels get <id> --json
  $ messaging-gateway channels delete <id> --delete-chats`,

  'channels connect': `Usage: messaging-gateway channels connect --transport <t> --listen <port> [--pairing-phone P] [--public-url URL] [--json]

Connects a new channel (channels.connect) and prints each step: the QR in the terminal as half
blocks (and saved as a PNG), the pairing code, the wapi address; asks for the account's two-factor
password without echo when the service wants it. Exits 0 when the channel is active, 1 when it
failed (the error class and the reason printed: qridle, foreignphone, openelsewhere, ...) or timed
out, 2 on a usage error.

Webhooks reach a receiver this command runs on 127.0.0.1:<port>: it subscribes its address (with
a secret made for this run) to channel.qr_update and channel.status_update, and removes those
subscriptions when it ends, Ctrl-C included.

Options:
  --transport T        whatsapp, tgapi, viber, max, wapi, telegram, maxbot, ...
  --listen PORT        the receiver's port on 127.0.0.1 (0: a free one)
  --public-url URL     the address the service delivers to when it cannot reach this machine
                       (a tunnel to PORT); the secret is added to its query
  --pairing-phone P    whatsapp: also ask for a pairing code for this phone (digits only)
  --qr-file F          where the QR's PNG is saved (default: ./<channel id>-qr.png)
  --credentials J      the transport's credentials: a JSON object, or @file holding one
                       (telegram: {"telegram_token":"..."}); never printed
  --timeout S          give up after S seconds (default: 300)
${SERVICE_HELP.replace('print one JSON document', 'print one JSON document per step (no QR art)')}

Examples:
  $ messaging-gateway channels connect --transport whatsapp --listen 0
  $ messaging-gateway channels connect --transport whatsapp --listen 3000 --public-url https://abc.example.net/hooks
  $ messaging-gateway channels connect --transport telegram --listen 0 --credentials @telegram.json`,

  webhooks: `Usage: messaging-gateway webhooks list | ensure <url> --events a,b [--prune] | remove <id>... [--json]

The API v2 subscriptions. ensure makes <url> subscribed to exactly these events (with --prune,
to nothing else), with the fewest writes; running it twice changes nothing. The URL's query is
printed as ?… (it may hold your receiver's secret).

Options:
  --events a,b   with ensure: message.add,message.status_update,...
  --prune        with ensure: also remove this URL's other subscriptions
${SERVICE_HELP}

Examples:
  $ messaging-gateway webhooks list
  $ messaging-gateway webhooks ensure "https://crm.example.com/hooks?secret=s" --events message.add,message.status_update --prune
  $ messaging-gateway webhooks remove <id> <id>`,

  v3: `Usage: messaging-gateway v3 get | set --uri <url> [--switch name=true|false]... [--json]

The API v3 webhook address and its four switches (messagesAndStatuses,
contactsAndDealsCreation, channelsUpdates, templateStatus). set sends the address and only the
switches named: the others keep their value. The service first POSTs { "test": true } to the
address, which must answer 200. The address's query values (a secret) are printed as …

Options:
  --uri URL             with set: the webhook address
  --switch name=true    with set: turn a switch on, or =false off (repeat for each)
${SERVICE_HELP}

Examples:
  $ messaging-gateway v3 get
  $ messaging-gateway v3 set --uri "https://crm.example.com/v3?secret=s" --switch messagesAndStatuses=true
  $ messaging-gateway v3 set --uri https://crm.example.com/v3 --switch templateStatus=false --json`,

  'fake-gateway': `Usage: messaging-gateway fake-gateway [--port N] [--token T] [--api-key K] [--crm-key K] [--repeats] [--manual-statuses] [--record dir] [--json] [--quiet]

Runs a fake of the gateway (API v2 and v3) on 127.0.0.1 until stopped (Ctrl-C), and prints its
address, token and API key, then one line per request it answers. Its address is also the inbox
page: open it in a browser to see the channels (and scan a channel's QR: the fake waits for it),
the chats with each message's status, the subscriptions and every request and delivery, and to
write to your CRM as the customer.

Options:
  --port N       port on 127.0.0.1 (default: a free port)
  --token T      the v2 token it accepts (default: fake-gateway-token)
  --api-key K    the v3 API key it accepts (default: fake-gateway-api-key)
  --crm-key K    v3 deliveries carry Authorization: Bearer K
  --repeats      deliver every webhook twice, as the service may
  --manual-statuses  keep each sent message at accepted: its statuses come from the inbox's buttons
  --record DIR   save every delivery it sends in DIR: 0001-<kind>.json, the raw body (what
                 decode and replay read), and 0001-<kind>.meta.json, its URL query and headers
  --json         print JSON lines: first { url, token, apiKey, inbox }, then { method, path, status } per request
  --quiet        print only the first line, not one per request
  --help         show this help

Examples:
  $ messaging-gateway fake-gateway
  $ messaging-gateway fake-gateway --port 4010 --record ./deliveries
  $ messaging-gateway fake-gateway --json --quiet`,

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
Run \`messaging-gateway trigger --list\` for every kind.

Examples:
  $ messaging-gateway trigger message.add --to "http://127.0.0.1:3000/hooks?secret=s"
  $ messaging-gateway trigger message.add --to http://127.0.0.1:3000/hooks --set data.0.text=Hi
  $ messaging-gateway trigger v3.createContact --to http://127.0.0.1:3000/v3 --crm-key k --json`,

  replay: `Usage: messaging-gateway replay <file or dir>... --to <url> [--only-to <url>] [--set path=value]... [--new-keys] [--json]

POSTs saved deliveries to <url> again, in order (a directory: its *.json files by name), and
prints each answer. A body is a raw delivery as decode reads it (from fake-gateway --record, or
a receiver's 'error' log); a sidecar <name>.meta.json next to it may give the receiver it was
made for, the URL query (used when --to has none) and the headers. A delivery recorded for
another receiver than <url> (such as the temporary receiver of send --wait) carries that
receiver's secret: its line says "recorded for another receiver". A file that does not decode
is not sent: its issues are printed. Exits 0 when every delivery sent decoded and got a 2xx, 1
otherwise.

Options:
  --to URL            the receiver
  --only-to URL       send only the deliveries recorded for this receiver (its query aside);
                      without --to, to that receiver
  --set path=value    change a field of every body before it is sent, as trigger does
  --set path:=json    set a field to a JSON value
  --new-keys          give each v2 delivery a fresh meta.idempotency_key, so a receiver that
                      already took it processes it again instead of answering "duplicate"
  --json              print one JSON line per file: { file, ok, status, body }, { file, ok, issues }
                      or { file, ok, skipped }; recordedFor names another receiver's delivery
  --help              show this help

Examples:
  $ messaging-gateway replay ./deliveries --to "http://127.0.0.1:3000/hooks?secret=s"
  $ messaging-gateway replay ./deliveries --to http://127.0.0.1:3000/hooks --new-keys
  $ messaging-gateway replay ./deliveries --only-to http://127.0.0.1:3000/hooks
  $ messaging-gateway replay 0003-message.add.json --to http://127.0.0.1:3000/hooks --set data.0.text=Hi`,

  postgres: `Usage: messaging-gateway postgres migrate [--url URL] [--schema S] [--json]
       messaging-gateway postgres sql [--schema S] [--json]

migrate creates or updates the tables of messaging-gateway-sdk/postgres in the database at URL
(default: DATABASE_URL), through the pg driver (npm install pg), and prints what it applied.
Running it again changes nothing.

sql prints the whole SQL of those tables for a schema, for your own migration tool (an empty
Prisma migration made with migrate dev's create-only flag, a drizzle-kit custom migration, Knex,
Flyway): each migration, creating the schema if missing, then the record of each, so migrate()
afterwards finds nothing to do. It connects to no database. The files it is made of ship as dist/postgres/sql/*.sql, for the schema
messaging_gateway.

Options:
  --url URL      migrate: the database (default: DATABASE_URL)
  --schema S     the schema of the tables (default: messaging_gateway)
  --json         migrate: print { ok, schema, applied }; sql: print { ok, schema, sql }
  --help         show this help

Examples:
  $ messaging-gateway postgres migrate --url postgres://localhost/crm
  $ messaging-gateway postgres sql --schema crm_gateway > prisma/migrations/20260101000000_gateway/migration.sql`,

  completion: `Usage: messaging-gateway completion bash | zsh | fish

Prints a script that completes the commands, subcommands, options and trigger kinds of
messaging-gateway in that shell (files where a command takes a file). Save it where the shell
looks for completions, or load it from the shell's start-up file:
source <(messaging-gateway completion bash) in ~/.bashrc, the same with zsh in ~/.zshrc (after
compinit), messaging-gateway completion fish | source in fish's config.

Options:
  --help   show this help

Examples:
  $ messaging-gateway completion bash > ~/.local/share/bash-completion/completions/messaging-gateway
  $ messaging-gateway completion zsh > "\${fpath[1]}/_messaging-gateway"
  $ messaging-gateway completion fish > ~/.config/fish/completions/messaging-gateway.fish`,

  decode: `Usage: messaging-gateway decode [file] [--json]

Decodes a webhook delivery of API v2 or v3 from <file>, or from standard input when no file is
given, as parseWebhook does. Prints its kind and items, or every issue by path.
Exits 0 when it decodes, 1 when it does not.

Options:
  --json   print { ok, api, kind, items } or { ok, issues } as JSON
  --help   show this help

Examples:
  $ messaging-gateway decode delivery.json
  $ curl -s https://staging.example.com/last-delivery | messaging-gateway decode --json`,
} as const;

/**
 * The help of a topic: `[]` the bin's, `['channels']`, `['channels', 'connect']`; options and
 * further words after the command are ignored. Undefined for a name that is not a command (an
 * own key of {@link HELP} only, so `toString` or `__proto__` is no topic).
 */
export function helpOf(topic: readonly string[]): string | undefined {
  const [command, sub] = topic;
  if (command === undefined) return HELP.main;
  if (command === 'main' || !Object.hasOwn(HELP, command)) return undefined;
  const pair = `${command} ${sub}`;
  return HELP[(Object.hasOwn(HELP, pair) ? pair : command) as keyof typeof HELP];
}
