// "Did you mean" for command lines that name no command, and the target of `cardctl help ...`.
// Pure (no oclif): it works from the command ids of the manifest, so both the oclif
// not-found hook and a fast path can call it.
//
// A word typed where a command goes may be anything, a pasted secret included. So a message
// repeats only words that ARE command words or are within a small edit distance of one (a typo
// of a public word); every other word is left out, and so is everything after the command.
import { CardctlError } from '../errors.js';

/** Edit distance (insertions, deletions, substitutions, adjacent swaps), capped for speed. */
export function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return 99;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** How far a typo may be from a word of this length and still count as that word. */
const tolerance = (word: string): number => (word.length <= 3 ? 1 : word.length <= 6 ? 2 : 3);

/** The closest candidate within tolerance (a prefix of at least 3 letters counts too: `cust` -> `customers`). */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const w = word.toLowerCase();
  let best: { c: string; d: number } | undefined;
  for (const c of candidates) {
    let d = editDistance(w, c);
    if (w.length >= 3 && c.startsWith(w)) d = Math.min(d, 1);
    if (d <= tolerance(c) && d < w.length && (!best || d < best.d)) best = { c, d };
  }
  return best?.c;
}

/** Children of a node of the command tree: `children(ids, ['mock'])` -> clock, faults, ... */
function children(ids: readonly string[], path: string[]): Set<string> {
  const prefix = path.length ? path.join(':') + ':' : '';
  const out = new Set<string>();
  for (const id of ids)
    if (id.startsWith(prefix) && id.length > prefix.length) out.add(id.slice(prefix.length).split(':')[0]!);
  return out;
}

export interface Resolution {
  /** the command words as corrected (`['cards', 'get']`) */
  words: string[];
  /** a full command id when the corrected words name one */
  command?: string;
  /** how many typed words were consumed as command words */
  consumed: number;
  /** a word was corrected (a typo), not only matched */
  corrected: boolean;
}

/**
 * Walks the typed words down the command tree, taking exact matches and close typos, and
 * stops at the first word that is neither (an argument, or something unknown).
 */
export function resolveWords(typed: readonly string[], ids: readonly string[]): Resolution {
  const idSet = new Set(ids);
  const words: string[] = [];
  let corrected = false;
  let command: string | undefined;
  let consumed = 0;
  for (const raw of typed) {
    if (raw.startsWith('-')) break;
    const next = children(ids, words);
    if (next.size === 0) break;
    const exact = next.has(raw) ? raw : undefined;
    const word = exact ?? closest(raw, next);
    if (!word) break;
    if (!exact) corrected = true;
    words.push(word);
    consumed++;
    if (idSet.has(words.join(':'))) {
      command = words.join(':');
      // a command that also opens a topic (`mock faults` and `mock faults add`) keeps going
      if (children(ids, words).size === 0) break;
    } else command = undefined;
  }
  return { words, command, consumed, corrected };
}

/** Topics named in package.json plus every command id's parents (`mock:faults` of `mock:faults:add`). */
function topicsOf(ids: readonly string[], topics: readonly string[]): Set<string> {
  const out = new Set(topics);
  for (const id of ids) {
    const parts = id.split(':');
    for (let i = 1; i < parts.length; i++) out.add(parts.slice(0, i).join(':'));
  }
  return out;
}

const shown = (words: string[]): string => `cardctl ${words.join(' ')}`;

/** Words for "show them all" typed after a command that already does (`mock faults list`). */
const LIST_WORDS = new Set(['list', 'ls', 'show', 'all']);

/**
 * Words people try that are not commands, answered with what to use instead. Keys are command
 * words (typed in lower case); they are public words, so echoing them is safe.
 */
const INSTEAD: Record<string, string> = {
  'cards:list':
    'The API has no card listing: a card is read by its id (`cardctl cards get CARD`). The cards you issued are in your journal (`cardctl ops list`), and their ids come back from `cardctl cards issue` (`--json | jq -r .id`).',
  'cards:create': 'To issue a card: `cardctl cards issue --customer ID --amount MINOR`.',
  'cards:new': 'To issue a card: `cardctl cards issue --customer ID --amount MINOR`.',
  'cards:delete':
    'A card is not deleted, it is terminated (its balance goes back to the wallet): `cardctl cards terminate CARD`.',
  'cards:cancel':
    'To end a card: `cardctl cards terminate CARD` (its balance goes back to the wallet); to pause it: `cardctl cards freeze CARD`.',
  'cards:close':
    'To end a card: `cardctl cards terminate CARD` (its balance goes back to the wallet); to pause it: `cardctl cards freeze CARD`.',
  'cards:block': 'To block spending on a card: `cardctl cards freeze CARD` (`cards unfreeze` undoes it).',
  'cards:lock': 'To block spending on a card: `cardctl cards freeze CARD` (`cards unfreeze` undoes it).',
  'cards:unblock': 'To allow spending again: `cardctl cards unfreeze CARD`.',
  'cards:unlock': 'To allow spending again: `cardctl cards unfreeze CARD`.',
  'cards:topup': 'To add money to a card: `cardctl cards recharge CARD --amount MINOR`.',
  'cards:top-up': 'To add money to a card: `cardctl cards recharge CARD --amount MINOR`.',
  'cards:load': 'To add money to a card: `cardctl cards recharge CARD --amount MINOR`.',
  'cards:fund': 'To add money to a card: `cardctl cards recharge CARD --amount MINOR`.',
  'cards:ls':
    'The API has no card listing: a card is read by its id (`cardctl cards get CARD`). The cards you issued are in your journal (`cardctl ops list`).',
  'cards:show': 'To show a card: `cardctl cards get CARD`.',
  'cards:balance': "A card's balance is its `balance_minor`: `cardctl cards get CARD` (`--json | jq .balance_minor`).",
  'customers:delete':
    'The API does not delete customers: disable one with `cardctl customers update CUSTOMER --status disabled`.',
  'customers:remove':
    'The API does not delete customers: disable one with `cardctl customers update CUSTOMER --status disabled`.',
  'customers:show': 'To show a customer: `cardctl customers get CUSTOMER`.',
  'customers:verify': 'To submit (or resubmit) a customer for verification: `cardctl customers kyc CUSTOMER`.',
  'customers:edit': 'To change a customer: `cardctl customers update CUSTOMER --FIELD VALUE`.',
  transactions: 'Transactions are per card: `cardctl cards transactions CARD`.',
  login:
    'cardctl has no login: save an API key in a profile (`cardctl profiles add NAME --key-id KEY_ID --mode test --secret-stdin`), or try everything on the mock (`cardctl mock start --save-profiles`).',
  auth: 'cardctl has no login: save an API key in a profile (`cardctl profiles add NAME --key-id KEY_ID --mode test --secret-stdin`), or try everything on the mock (`cardctl mock start --save-profiles`).',
  init: 'To set up: save an API key in a profile (`cardctl profiles add NAME --key-id KEY_ID --mode test --secret-stdin`), or start the mock with profiles for it (`cardctl mock start --save-profiles`); then `cardctl doctor`.',
  setup:
    'To set up: save an API key in a profile (`cardctl profiles add NAME --key-id KEY_ID --mode test --secret-stdin`), or start the mock with profiles for it (`cardctl mock start --save-profiles`); then `cardctl doctor`.',
  configure:
    'To set up: save an API key in a profile (`cardctl profiles add NAME --key-id KEY_ID --mode test --secret-stdin`), or start the mock with profiles for it (`cardctl mock start --save-profiles`); then `cardctl doctor`.',
  status: 'To check a setup (credentials, reach, clock, key, mode, scopes): `cardctl doctor`.',
  ping: 'To check a setup (credentials, reach, clock, key, mode, scopes): `cardctl doctor`.',
  health: 'To check a setup (credentials, reach, clock, key, mode, scopes): `cardctl doctor`.',
  config:
    'Settings live in profiles: `cardctl profiles list`, `cardctl profiles add NAME ...`, `cardctl profiles use NAME`.',
  'mock:stop': 'A mock runs until you stop it: Ctrl-C in its terminal (or `kill` the pid it printed).',
  'webhooks:receive': 'To receive webhooks locally: `cardctl webhooks listen` (`--mock` registers it on the mock).',
};

/** What to use instead, for a likely word that is not a command (`cards list`). */
export function insteadOf(typed: readonly string[]): { words: string; hint: string } | undefined {
  const words = typed.filter((w) => !w.startsWith('-')).map((w) => w.toLowerCase());
  for (const n of [2, 1]) {
    const key = words.slice(0, n).join(':');
    if (words.length >= n && INSTEAD[key]) return { words: key.replaceAll(':', ' '), hint: INSTEAD[key]! };
  }
  return undefined;
}

/**
 * The error for a command line that names no command. Repeats only the command words (typed
 * words that are command words or typos of one), never the rest.
 */
export function notFoundError(
  typed: readonly string[],
  ids: readonly string[],
  topics: readonly string[],
): CardctlError {
  const instead = insteadOf(typed);
  if (instead && !ids.includes(instead.words.replaceAll(' ', ':'))) {
    return new CardctlError(`\`cardctl ${instead.words}\` is not a command.`, {
      kind: 'usage',
      code: 'command_not_found',
      hint: instead.hint,
    });
  }
  const r = resolveWords(typed, ids);
  const correctedInstead = r.corrected ? insteadOf([...r.words, ...typed.slice(r.consumed)]) : undefined;
  if (correctedInstead && !ids.includes(correctedInstead.words.replaceAll(' ', ':'))) {
    return new CardctlError(`"${typed.slice(0, r.consumed).join(' ')}" is not a cardctl command.`, {
      kind: 'usage',
      code: 'command_not_found',
      hint: correctedInstead.hint,
    });
  }
  const topicSet = topicsOf(ids, topics);
  const rest = typed.length > r.consumed;
  const echoed = typed.slice(0, r.consumed).join(' ');
  if (r.corrected && (r.command || topicSet.has(r.words.join(':')))) {
    const target = shown(r.words) + (r.command && rest ? ' …' : '');
    return new CardctlError(`"${echoed}" is not a cardctl command.`, {
      kind: 'usage',
      code: 'command_not_found',
      hint: `Did you mean \`${target}\`? See \`${shown(r.words)} --help\`.`,
    });
  }
  if (r.words.length > 0) {
    // the first words are right, the next one is not a command of that topic
    const options = [...children(ids, r.words)].sort();
    const head = shown(r.words);
    // `mock faults list`: the topic is a command that lists by itself (a public word, safe to echo)
    const next = typed[r.consumed]?.toLowerCase();
    if (r.command && next && LIST_WORDS.has(next)) {
      return new CardctlError(`\`${head}\` has no command ${next}: \`${head}\` itself shows them.`, {
        kind: 'usage',
        code: 'command_not_found',
        hint: `Run \`${head}\` (\`--json\` for JSON)${options.length ? `; its commands: ${options.join(', ')}` : ''}. See \`${head} --help\`.`,
      });
    }
    return new CardctlError(
      `\`${head}\` has no such command${typed[r.consumed] ? ' (the word after it is not shown: it could be a value)' : ''}.`,
      {
        kind: 'usage',
        code: 'command_not_found',
        hint: options.length
          ? `Its commands: ${options.join(', ')}. See \`${head} --help\`.`
          : `See \`${head} --help\`.`,
      },
    );
  }
  return new CardctlError('no such command (the word typed is not shown: it could be a value).', {
    kind: 'usage',
    code: 'command_not_found',
    hint: `Commands: ${[...children(ids, [])].sort().join(', ')}. See \`cardctl --help\`, or \`cardctl help COMMAND\`.`,
  });
}

/**
 * `cardctl help cards issue` -> the words to show help for (`['cards', 'issue']`), corrected
 * when they are a typo of a command or topic; an error when they name nothing.
 */
export function helpTarget(
  typed: readonly string[],
  ids: readonly string[],
  topics: readonly string[],
): { words: string[]; corrected: boolean } | CardctlError {
  const words = typed.filter((w) => !w.startsWith('-'));
  if (words.length === 0) return { words: [], corrected: false };
  const r = resolveWords(words, ids);
  const topicSet = topicsOf(ids, topics);
  if (r.consumed === words.length && (r.command || topicSet.has(r.words.join(':'))))
    return { words: r.words, corrected: r.corrected };
  return notFoundError(words, ids, topics);
}
