// Every environment variable cardctl reads, in one list (issue 38): what each does, for
// `cardctl config` (src/commands/config.ts) and docs/environment.md. Whether one is set is shown,
// never its value: values from the environment are named, never quoted back (a secret pasted
// into the wrong variable stays unseen, docs/profiles.md); what a setting's value is in effect,
// with where it came from, is the settings part of `cardctl config` (src/client/settings.ts).
// test/cli/config.test.ts checks that every variable the code reads is here.

export interface EnvironmentVariable {
  readonly name: string;
  /** read too, when `name` is unset (the proxies' upper-case spelling) */
  readonly alias?: string;
  readonly group: 'credentials' | 'network' | 'files' | 'mock' | 'journal' | 'output' | 'start-up';
  readonly what: string;
  /** a secret (its value never leaves the process; here too only whether it is set) */
  readonly secret?: boolean;
}

export const ENVIRONMENT: readonly EnvironmentVariable[] = [
  {
    name: 'CARDCTL_PROFILE',
    group: 'credentials',
    what: 'the profile to use when -p is not given (after CARDCTL_API_KEY and CARDCTL_API_SECRET)',
  },
  {
    name: 'CARDCTL_API_KEY',
    group: 'credentials',
    what: 'API key id; with CARDCTL_API_SECRET, used instead of a profile',
  },
  { name: 'CARDCTL_API_SECRET', group: 'credentials', what: 'API secret of CARDCTL_API_KEY', secret: true },
  {
    name: 'CARDCTL_BASE_URL',
    group: 'credentials',
    what: 'base URL with CARDCTL_API_KEY (default the local mock, http://127.0.0.1:4010/api/v1); not used with a profile',
  },
  {
    name: 'CARDCTL_MODE',
    group: 'credentials',
    what: "test or live, with CARDCTL_API_KEY; the API's word on the key decides",
  },
  {
    name: 'CARDCTL_WEBHOOK_SECRET',
    group: 'credentials',
    what: "webhook signing secret (webhooks verify, listen, test), before the profile's",
    secret: true,
  },
  {
    name: 'CARDCTL_SECRET_COMMAND_TIMEOUT',
    group: 'credentials',
    what: "seconds a profile's --secret-command may take (default 10)",
  },
  {
    name: 'CARDCTL_TIMEOUT',
    group: 'network',
    what: "seconds each attempt may take, below --timeout and above the profile's (default 30)",
  },
  { name: 'CARDCTL_TIMEOUT_MS', group: 'network', what: 'the same in milliseconds, when CARDCTL_TIMEOUT is unset' },
  {
    name: 'CARDCTL_CA_FILE',
    group: 'network',
    what: "PEM file of CA certificates trusted besides the system's, below --ca-file and above the profile's",
  },
  {
    name: 'NODE_EXTRA_CA_CERTS',
    group: 'network',
    what: "PEM file Node adds to the system's CA certificates (kept beside --ca-file)",
  },
  {
    name: 'https_proxy',
    alias: 'HTTPS_PROXY',
    group: 'network',
    what: "proxy for https:// base URLs (curl's rules: lower case first; its password is never shown)",
  },
  { name: 'http_proxy', alias: 'HTTP_PROXY', group: 'network', what: 'proxy for http:// base URLs' },
  { name: 'all_proxy', alias: 'ALL_PROXY', group: 'network', what: "proxy when the scheme's own is unset" },
  {
    name: 'no_proxy',
    alias: 'NO_PROXY',
    group: 'network',
    what: 'hosts, domains and address ranges reached without a proxy (* for all)',
  },
  {
    name: 'CARDCTL_CONFIG_DIR',
    group: 'files',
    what: 'folder of profiles.json (default $XDG_CONFIG_HOME/cardctl, ~/.config/cardctl)',
  },
  {
    name: 'XDG_CONFIG_HOME',
    group: 'files',
    what: "the config folder cardctl's is under, when CARDCTL_CONFIG_DIR is unset",
  },
  {
    name: 'CARDCTL_STATE_DIR',
    group: 'files',
    what: 'folder of the journal and the state files (default $XDG_STATE_HOME/cardctl, ~/.local/state/cardctl)',
  },
  {
    name: 'XDG_STATE_HOME',
    group: 'files',
    what: "the state folder cardctl's is under, when CARDCTL_STATE_DIR is unset",
  },
  {
    name: 'CARDCTL_CACHE_DIR',
    group: 'files',
    what: 'folder of the start-up code cache and the compiled jq (default $XDG_CACHE_HOME/cardctl, ~/.cache/cardctl)',
  },
  {
    name: 'XDG_CACHE_HOME',
    group: 'files',
    what: "the cache folder cardctl's is under, when CARDCTL_CACHE_DIR is unset",
  },
  { name: 'APPDATA', group: 'files', what: 'Windows: the config folder' },
  { name: 'LOCALAPPDATA', group: 'files', what: 'Windows: the state and cache folders' },
  {
    name: 'CARDCTL_MOCK_URL',
    group: 'mock',
    what: 'control URL of the mock the mock commands talk to (with CARDCTL_MOCK_TOKEN); default the newest running mock',
  },
  { name: 'CARDCTL_MOCK_TOKEN', group: 'mock', what: "the mock's control token", secret: true },
  {
    name: 'CARDCTL_JOURNAL_URL',
    group: 'journal',
    what: 'a PostgreSQL URL: the journal of money operations shared by every machine that sets it (docs/journal.md); below --journal',
    secret: true,
  },
  {
    name: 'CARDCTL_JOURNAL_HOLD',
    group: 'journal',
    what: 'seconds a process that stops answering keeps the keys it holds in a shared journal (3 to 3600, default 60)',
  },
  { name: 'PGHOST', group: 'journal', what: "a shared journal's server, when its URL names none (libpq's variables)" },
  { name: 'PGPORT', group: 'journal', what: "a shared journal's port, when its URL names none" },
  { name: 'PGUSER', group: 'journal', what: "a shared journal's user, when its URL names none" },
  { name: 'PGPASSWORD', group: 'journal', what: "a shared journal's password, when its URL has none", secret: true },
  {
    name: 'PGPASSFILE',
    group: 'journal',
    what: "the password file (libpq's format) read when neither the URL nor PGPASSWORD has one (default ~/.pgpass; used only at chmod 600)",
  },
  { name: 'PGDATABASE', group: 'journal', what: "a shared journal's database, when its URL names none" },
  {
    name: 'PGSERVICE',
    group: 'journal',
    what: "the connection service (a [section] of libpq's pg_service.conf) a shared journal's URL leaves out; its parameters come before the PG* variables",
  },
  {
    name: 'PGSERVICEFILE',
    group: 'journal',
    what: 'the connection service file read first (default ~/.pg_service.conf)',
  },
  {
    name: 'PGSYSCONFDIR',
    group: 'journal',
    what: "the folder of the system's pg_service.conf, read for a service the first file has not (default /etc/postgresql-common)",
  },
  {
    name: 'PGSSLMODE',
    group: 'journal',
    what: 'TLS to a shared journal (disable, prefer (the default), require, verify-ca, verify-full), when its URL sets no sslmode',
  },
  { name: 'PGSSLROOTCERT', group: 'journal', what: "the CA file a shared journal's certificate is checked against" },
  { name: 'PGSSLCERT', group: 'journal', what: 'a client certificate for a shared journal' },
  { name: 'PGSSLKEY', group: 'journal', what: "that certificate's key" },
  { name: 'PGCONNECT_TIMEOUT', group: 'journal', what: 'seconds to connect to a shared journal (default 10)' },
  {
    name: 'PGAPPNAME',
    group: 'journal',
    what: "how a shared journal's server names this connection (default cardctl on HOST (pid N))",
  },
  {
    name: 'CARDCTL_JOURNAL_RETENTION',
    group: 'journal',
    what: 'days resolved journal entries are kept (default 90), or off',
  },
  { name: 'NO_COLOR', group: 'output', what: 'set (not empty): no colour, plain tables' },
  { name: 'FORCE_COLOR', group: 'output', what: 'set (not 0): colour even when not a terminal' },
  { name: 'TERM', group: 'output', what: 'dumb: no colour' },
  { name: 'CI', group: 'output', what: 'true (or 1): never prompt, as --no-input' },
  {
    name: 'GITHUB_ACTIONS',
    group: 'output',
    what: 'true: smoke and webhooks test also print ::error annotations (and a summary to GITHUB_STEP_SUMMARY)',
  },
  {
    name: 'GITHUB_STEP_SUMMARY',
    group: 'output',
    what: 'under GitHub Actions: the file smoke appends its summary table to',
  },
  { name: 'CARDCTL_DEBUG', group: 'output', what: "set: an unexpected error's stack trace after its message" },
  { name: 'CARDCTL_NO_FAST_PATH', group: 'start-up', what: "set: every command through oclif (the fast path's twin)" },
  { name: 'CARDCTL_NO_BUNDLE', group: 'start-up', what: 'set: run dist/ instead of the start-up bundles' },
  { name: 'CARDCTL_NO_CODE_CACHE', group: 'start-up', what: "set: compile without V8's code cache" },
];

/** Whether the variable (or its alias) is set: a value other than the empty string. */
export function isSet(v: EnvironmentVariable, env: NodeJS.ProcessEnv): string | undefined {
  for (const name of [v.name, ...(v.alias ? [v.alias] : [])])
    if (env[name] !== undefined && env[name] !== '') return name;
  return undefined;
}
