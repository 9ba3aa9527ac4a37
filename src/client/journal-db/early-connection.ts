// A shared journal's connection started by bin/run.js as soon as the command line is parsed, before
// the command's code is compiled (its script is the largest part of a start): the server makes
// the session and checks the password meanwhile, and the journal takes the connection over
// (postgres.ts). A script of its own in the build (dist/bundle/journal-early.cjs, the postgres
// package inside), loaded only when a shared journal is named. It decides nothing: any failure
// here is left for the journal to meet and say, and its statement never keeps the process alive.
import postgres from 'postgres';
import { earlyConnections, PostgresConnection, targetKey } from './postgres-connection.js';
import { journalPlace } from './target.js';

/**
 * Starts connecting to the shared journal `--journal` (flag) or CARDCTL_JOURNAL_URL names, if they
 * name one; resolves once its socket is made (the package makes it on a timer), or at once.
 */
export function connectEarly(o: { flag?: string; env: NodeJS.ProcessEnv }): Promise<void> {
  let target;
  try {
    target = journalPlace(o).shared;
  } catch {
    return Promise.resolve(); // a URL out of shape: the command says so
  }
  if (!target || earlyConnections().has(targetKey(target))) return Promise.resolve();
  const conn = new PostgresConnection(target, () => postgres);
  earlyConnections().set(targetKey(target), conn);
  return new Promise((socketMade) => {
    conn.onSocket = socketMade;
    void conn
      .open()
      .then((sql) => sql`SELECT 1`)
      .then(() => conn.answered())
      .catch(() => void (conn.failedEarly = true))
      .finally(socketMade);
  });
}
