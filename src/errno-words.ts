// A failed connection in words, for what the mock's webhook deliveries record and what
// `cardctl webhooks test` (the receiver grader) reports: one table, so both say the same thing
// for the same failure. Anything not in it is shown as its code and the system's message.

const WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
};

/** `connection refused`, or `CODE: message` for a code the table does not name (the message alone without a code). */
export function connectionErrorWords(err: NodeJS.ErrnoException): string {
  const words = err.code === undefined ? undefined : WORDS[err.code];
  return words ?? (err.code ? `${err.code}: ${err.message}` : err.message);
}
