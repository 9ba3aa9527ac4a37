// cardctl mock console: plain JavaScript, no framework. Every string that comes from the mock
// (and so from a request) is put in the page as text (textContent, text nodes), never as HTML.

const API = '/_console/api';
const main = document.getElementById('main');
const liveBadge = document.getElementById('live');

/** An element with attributes (on* are listeners) and children (strings become text nodes). */
function el(tag, props, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const kid of kids.flat(Infinity)) {
    if (kid === undefined || kid === null || kid === false) continue;
    e.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return e;
}

/** Replaces the children of `target` (arrays flattened, null and false left out). */
function put(target, ...kids) {
  target.replaceChildren(
    ...kids
      .flat(Infinity)
      .filter((k) => k !== null && k !== undefined && k !== false)
      .map((k) => (k instanceof Node ? k : document.createTextNode(String(k)))),
  );
}

const link = (href, text) => el('a', { href }, text);
const idLink = (kind, id) =>
  id ? link(`#/${kind}/${encodeURIComponent(id)}`, id) : el('span', { class: 'muted' }, '—');
const time = (iso) => (typeof iso === 'string' ? iso.replace(/^\d{4}-\d{2}-\d{2}T/, '').replace('Z', '') : '');
const money = (minor) => (typeof minor === 'number' ? (minor / 100).toFixed(2) : '');

let loggedOut = false;
function showLoggedOut() {
  if (loggedOut) return;
  loggedOut = true;
  put(
    main,
    el(
      'div',
      { class: 'alert', role: 'alert' },
      'Your console session ended. Run ',
      el('code', {}, 'cardctl mock console'),
      ' for a new login address.',
    ),
  );
}

/** One call of the control plane through the console: {ok, status, json}. */
async function call(method, sub, body) {
  const init = { method, credentials: 'same-origin', headers: {} };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(API + sub, init);
  } catch {
    return { ok: false, status: 0, json: { message: 'The mock does not answer: is it still running?' } };
  }
  let json;
  try {
    json = await res.json();
  } catch {
    json = { message: `HTTP ${res.status}` };
  }
  if (res.status === 401) showLoggedOut();
  return { ok: res.ok && json.success !== false, status: res.status, json };
}
const control = (method, sub, body) => call(method, `/control${sub}`, body);

/** The control plane's answer to a change, said in the page: its message and each field's. */
function outcome(r, done) {
  if (r.ok) return el('div', { class: 'success', role: 'status' }, done);
  const errors = r.json && r.json.errors && typeof r.json.errors === 'object' ? Object.entries(r.json.errors) : [];
  return el(
    'div',
    { class: 'alert', role: 'alert' },
    el('strong', {}, `Refused (${r.status}): `),
    r.json.message || 'refused',
    errors.length
      ? el(
          'ul',
          {},
          errors.map(([f, m]) => el('li', {}, `${f}: ${Array.isArray(m) ? m.join('; ') : String(m)}`)),
        )
      : null,
  );
}

/** A small form whose submit makes one control call and shows its outcome. */
function controlForm(label, fields, submit, run) {
  const out = el('div', { 'aria-live': 'polite' });
  const inputs = {};
  const form = el(
    'form',
    { class: 'inline', 'aria-label': label },
    fields.map((f) => {
      const id = `f-${label.replace(/\W+/g, '-')}-${f.name}`.toLowerCase();
      let input;
      if (f.options)
        input = el(
          'select',
          { id, name: f.name },
          f.options.map((o) => el('option', { value: o }, o)),
        );
      else
        input = el('input', {
          id,
          name: f.name,
          type: f.type || 'text',
          value: f.value,
          placeholder: f.placeholder,
          required: f.required,
          step: f.step,
        });
      inputs[f.name] = input;
      return el('div', { class: 'field' }, el('label', { for: id }, f.label), input);
    }),
    el('button', { type: 'submit' }, submit),
  );
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const values = {};
    for (const [k, i] of Object.entries(inputs)) values[k] = i.type === 'checkbox' ? i.checked : i.value;
    const button = form.querySelector('button');
    button.disabled = true;
    const { r, done } = await run(values);
    button.disabled = false;
    put(out, outcome(r, done));
  });
  return el('div', {}, form, out);
}

// ---------------------------------------------------------------------------------------
// Canonical strings side by side: the fields arrive with invisible characters already spelled
// (\n, \x00, \u{200B}, ␠); each is one unit here, shown boxed, and the units that differ marked.

const UNITS = /\\x[0-9a-f]{2}|\\u\{[0-9A-F]+\}|\\[nrt\\]|␠|[\s\S]/gu;
const units = (s) => String(s ?? '').match(UNITS) || [];
const INVISIBLE = /^(\\x[0-9a-f]{2}|\\u\{[0-9A-F]+\}|\\[nrt]|␠)$/u;

function unitNodes(list) {
  const out = [];
  let text = '';
  for (const u of list) {
    if (INVISIBLE.test(u)) {
      if (text) out.push(text);
      text = '';
      out.push(el('span', { class: 'invis', title: 'an invisible character' }, u));
    } else text += u;
  }
  if (text) out.push(text);
  return out;
}

/** The two values with their common start and end plain, the middle of each marked. */
function diffPair(a, b) {
  const ua = units(a);
  const ub = units(b);
  let start = 0;
  while (start < ua.length && start < ub.length && ua[start] === ub[start]) start++;
  let end = 0;
  while (end < ua.length - start && end < ub.length - start && ua[ua.length - 1 - end] === ub[ub.length - 1 - end])
    end++;
  const side = (u) => [
    ...unitNodes(u.slice(0, start)),
    u.length - end > start ? el('mark', {}, unitNodes(u.slice(start, u.length - end))) : null,
    ...unitNodes(u.slice(u.length - end)),
  ];
  return [side(ua), side(ub), a !== b];
}

const FIELD_NAMES = ['METHOD', 'PATH', 'QUERY_STRING', 'X-Api-Key', 'X-Timestamp', 'X-Nonce', 'BODY_SHA256'];

function canonicalTable(received, expected) {
  const rows = [];
  const n = Math.max(expected.length, received ? received.length : 0);
  for (let i = 0; i < n; i++) {
    const name = `${i + 1} ${FIELD_NAMES[i] || 'EXTRA'}`;
    if (received) {
      const [ra, eb, differs] = diffPair(received[i] ?? '', expected[i] ?? '');
      rows.push(
        el(
          'tr',
          { class: differs ? 'differs' : '' },
          el('td', { class: 'name' }, name, differs ? ' (differs)' : ''),
          el('td', {}, ra),
          el('td', {}, eb),
        ),
      );
    } else rows.push(el('tr', {}, el('td', { class: 'name' }, name), el('td', {}, unitNodes(units(expected[i])))));
  }
  return el(
    'table',
    { class: 'canonical' },
    el(
      'caption',
      {},
      received
        ? 'The canonical string the client signed, beside the one the mock expected'
        : 'The canonical string the mock expected',
    ),
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        el('th', { scope: 'col' }, 'field'),
        received ? el('th', { scope: 'col' }, 'received (what the client signed)') : null,
        el('th', { scope: 'col' }, received ? 'expected (what the mock built)' : 'value'),
      ),
    ),
    el('tbody', {}, rows),
  );
}

/** A diagnosis: its id, sentence, each mistake with its fix, and the canonical strings. */
function diagnosisBlock(d) {
  const details = d.details || {};
  const mistakes = Array.isArray(details.mistakes) ? details.mistakes : Array.isArray(d.mistakes) ? d.mistakes : [];
  const expected = details.canonical || d.canonical;
  const received = details.received_canonical || d.received_canonical;
  const same = received && expected && received.every((f, i) => f === expected[i]);
  return el(
    'section',
    { class: 'diagnosis', 'aria-label': 'Diagnosis' },
    el('p', {}, el('span', { class: 'id' }, d.id || d.verdict), ': ', d.message),
    mistakes.length
      ? el(
          'ul',
          { class: 'mistakes' },
          mistakes.map((m) =>
            el('li', {}, el('code', {}, m.id), ' — ', m.description, '. ', el('strong', {}, 'Fix: '), m.fix),
          ),
        )
      : null,
    Array.isArray(expected) ? canonicalTable(Array.isArray(received) ? received : null, expected) : null,
    same
      ? el(
          'p',
          { class: 'muted' },
          'The canonical strings agree: the mistake is in the secret used or in how the signature was encoded.',
        )
      : null,
    Array.isArray(d.warnings) && d.warnings.length
      ? el(
          'ul',
          {},
          d.warnings.map((w) => el('li', {}, w)),
        )
      : null,
    el('p', { class: 'muted' }, 'No signature is shown: not the one sent, not the one the mock would accept.'),
  );
}

// ---------------------------------------------------------------------------------------
// The request log

const log = {
  filters: { status: '', path: '', key: '', failed: false },
  cursors: [],
  cursor: null,
  rows: [],
  hasMore: false,
  newer: 0,
  pending: null,
};

function logQuery() {
  const q = new URLSearchParams({ limit: '100' });
  const f = log.filters;
  if (f.status) q.set('status', f.status);
  if (f.path) q.set('path', f.path);
  if (f.key) q.set('key', f.key);
  if (f.failed) q.set('failed', 'true');
  if (log.cursor) q.set('cursor', log.cursor);
  return q.toString();
}

function requestRow(r) {
  const refused = (typeof r.status === 'number' && r.status >= 400) || (r.outcome && r.outcome !== 'answered');
  return el(
    'tr',
    { class: refused ? 'refused' : '' },
    el('td', { class: 'id' }, link(`#/requests/${encodeURIComponent(r.id)}`, r.id)),
    el('td', {}, time(r.received_at)),
    el('td', {}, r.method),
    el('td', { class: 'path' }, r.path + (r.query ? `?${r.query}` : '')),
    el(
      'td',
      { class: `status${refused ? '' : ' ok'}` },
      r.status === null ? r.outcome : r.status,
      r.outcome && r.outcome !== 'answered' && r.status !== null ? ` (${r.outcome})` : '',
    ),
    el('td', { class: 'id' }, r.key_id || ''),
    el(
      'td',
      {},
      [
        ...(r.codes || []),
        ...(r.diagnosis && typeof r.diagnosis === 'object' ? [r.diagnosis.id] : r.diagnosis ? [r.diagnosis] : []),
      ]
        .filter((c, i, a) => a.indexOf(c) === i)
        .join(' · '),
    ),
  );
}

async function loadLog(target) {
  const r = await control('GET', `/requests?${logQuery()}`);
  if (!r.ok) {
    put(target.table, outcome(r, ''));
    return;
  }
  log.rows = r.json.data;
  log.hasMore = r.json.meta && r.json.meta.has_more;
  log.next = r.json.meta && r.json.meta.next_cursor;
  log.newer = 0;
  const tbody = el('tbody', {}, log.rows.map(requestRow));
  put(
    target.table,
    el(
      'table',
      { class: 'requests' },
      el('caption', {}, `Requests, newest first${log.cursor ? ' (older page)' : ''}: ${log.rows.length} shown`),
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          ['id', 'time (UTC)', 'method', 'path', 'status', 'key', 'codes and diagnosis'].map((h) =>
            el('th', { scope: 'col' }, h),
          ),
        ),
      ),
      tbody,
    ),
    log.rows.length ? null : el('p', { class: 'muted' }, 'No request matches (yet).'),
  );
  target.older.disabled = !log.hasMore;
  target.newest.disabled = !log.cursor;
  target.note.textContent = '';
}

function requestsView() {
  const table = el('div', {});
  const note = el('span', { class: 'muted', 'aria-live': 'polite' });
  const older = el('button', { type: 'button', class: 'secondary' }, 'Older →');
  const newest = el('button', { type: 'button', class: 'secondary' }, '← Newest');
  const target = { table, note, older, newest };
  const f = log.filters;
  const field = (name, label, placeholder) => {
    const input = el('input', { id: `flt-${name}`, name, value: f[name], placeholder });
    return el('label', { for: `flt-${name}` }, label, input);
  };
  const failed = el('input', { id: 'flt-failed', type: 'checkbox', name: 'failed' });
  failed.checked = f.failed;
  const form = el(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Filter the requests' },
    field('status', 'Status', '4xx or 401,409'),
    field('path', 'Route (path prefix)', '/api/v1/cards'),
    field('key', 'Key id', 'key id'),
    el('label', { class: 'check', for: 'flt-failed' }, failed, 'Refused only'),
    el('button', { type: 'submit' }, 'Filter'),
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    for (const k of ['status', 'path', 'key']) f[k] = form.elements[k].value.trim();
    f.failed = failed.checked;
    log.cursor = null;
    log.cursors = [];
    loadLog(target);
  });
  older.addEventListener('click', () => {
    log.cursors.push(log.cursor);
    log.cursor = log.next;
    loadLog(target);
  });
  newest.addEventListener('click', () => {
    log.cursor = null;
    log.cursors = [];
    loadLog(target);
  });
  log.target = target; // the view shown now: a read already scheduled by an earlier view lands here, not in its detached table
  log.onLive = (count) => {
    if (!log.cursor) {
      // at most one read a second, however busy the mock: the first page read again
      log.pending ??= setTimeout(() => {
        log.pending = null;
        if (log.onLive) loadLog(log.target);
      }, 1000);
    } else {
      log.newer += count;
      note.textContent = `${log.newer} newer request${log.newer === 1 ? '' : 's'}: see ← Newest`;
    }
  };
  put(main, el('h2', {}, 'Requests'), form, el('div', { class: 'pager' }, newest, older, note), table);
  loadLog(target);
}

async function requestView(id) {
  log.onLive = null;
  const r = await control('GET', `/requests/${encodeURIComponent(id)}`);
  if (!r.ok) return put(main, el('h2', {}, id), outcome(r, ''));
  const rec = r.json.data;
  const body = rec.body || {};
  put(
    main,
    el('p', {}, link('#/requests', '← All requests')),
    el('h2', {}, `${rec.id}: ${rec.method} ${rec.path}${rec.query ? `?${rec.query}` : ''}`),
    el(
      'div',
      { class: 'grid' },
      el(
        'section',
        { class: 'panel', 'aria-label': 'The request' },
        el('h3', {}, 'Request'),
        el(
          'dl',
          { class: 'fields' },
          [
            ['plane', rec.plane],
            ['received (real clock)', rec.received_at],
            ['simulated clock', rec.simulated_at],
            ['source address', rec.source_address],
            ['X-Api-Key', rec.key_id],
            ['mode', rec.mode],
            ['X-Nonce', rec.nonce],
            ['Idempotency-Key', rec.idempotency_key],
          ].map(([k, v]) => [el('dt', {}, k), el('dd', { class: 'mono' }, v === null || v === undefined ? '—' : v)]),
        ),
        el(
          'p',
          { class: 'muted' },
          'The log keeps these header values only; secrets are replaced by “(a secret: not recorded)”, as in `cardctl mock requests show`.',
        ),
      ),
      el(
        'section',
        { class: 'panel', 'aria-label': 'The answer' },
        el('h3', {}, 'Answer'),
        el(
          'dl',
          { class: 'fields' },
          [
            ['status', rec.status === null ? '—' : rec.status],
            ['outcome', rec.outcome],
            ['error codes', (rec.codes || []).join(', ') || '—'],
            ['duration', `${rec.duration_ms} ms`],
          ].map(([k, v]) => [el('dt', {}, k), el('dd', {}, v)]),
        ),
      ),
    ),
    el(
      'section',
      { class: 'panel', 'aria-label': 'The body' },
      el('h3', {}, `Body: ${body.bytes || 0} bytes${body.truncated ? ' (the first 16 KiB kept)' : ''}`),
      body.text ? el('pre', { class: 'body' }, body.text) : el('p', { class: 'muted' }, 'No body.'),
      el('p', { class: 'muted mono' }, `SHA-256 ${body.sha256 || ''}`),
    ),
    rec.diagnosis ? diagnosisBlock(rec.diagnosis) : el('p', { class: 'muted' }, 'Not refused: no diagnosis.'),
  );
}

// ---------------------------------------------------------------------------------------
// The state

function table(caption, headers, rows) {
  return el(
    'table',
    {},
    el('caption', {}, caption),
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        headers.map((h) => el('th', { scope: 'col' }, h)),
      ),
    ),
    el('tbody', {}, rows.length ? rows : el('tr', {}, el('td', { colspan: headers.length, class: 'muted' }, 'none'))),
  );
}
const td = (v, cls) => el('td', { class: cls }, v === null || v === undefined ? '—' : v);
const shownOf = (r) =>
  r.json.meta && r.json.meta.total > r.json.meta.shown ? ` (newest ${r.json.meta.shown} of ${r.json.meta.total})` : '';

async function readAll(names) {
  const replies = await Promise.all(names.map((n) => control('GET', `/${n}`)));
  return Object.fromEntries(names.map((n, i) => [n, replies[i]]));
}

const keyState = (k) =>
  k.revoked
    ? 'revoked'
    : k.expires_at
      ? `expires ${k.expires_at}`
      : k.rolled
        ? 'rolled (old secret in overlap)'
        : 'active';
const WALLET_FIELDS = [
  'balance_minor',
  'cards_balance_minor',
  'fees_collected_minor',
  'reserved_minor',
  'initial_balance_minor',
  'deposits_credited_minor',
];

/** The tables of the state view: the control plane read behind each, its caption, columns and cells. */
const STATE_TABLES = [
  {
    read: 'merchants',
    caption: 'Merchants and their keys (never a secret)',
    headers: ['merchant', 'key', 'mode', 'scopes', 'state'],
    rows: (list) => list.flatMap((m) => m.keys.map((k) => ({ m, k }))),
    cells: ({ m, k }) => [
      td(idLink('merchant', m.id), 'id'),
      td(k.key_id, 'id'),
      td(k.mode),
      td(k.scopes.join(', ')),
      td(keyState(k)),
    ],
  },
  {
    read: 'wallets',
    caption: 'Wallets: every minor unit accounted for',
    headers: ['merchant', 'mode', 'balance', 'on cards', 'fees collected', 'reserved', 'initial', 'deposits credited'],
    cells: (w) => [
      td(idLink('merchant', w.merchant_id), 'id'),
      td(w.mode),
      ...WALLET_FIELDS.map((k) => td(money(w[k]), 'num')),
    ],
  },
  {
    read: 'customers',
    caption: 'Customers',
    headers: ['customer', 'name', 'merchant', 'KYC', 'status'],
    cells: (c) => [
      td(idLink('customer', c.id), 'id'),
      td(`${c.first_name} ${c.last_name}`.trim() || c.business_name),
      td(idLink('merchant', c.merchant_id), 'id'),
      td(c.kyc_status + (c.kyc_failure_reason ? ` (${c.kyc_failure_reason})` : '')),
      td(c.status),
    ],
  },
  {
    read: 'cards',
    caption: 'Cards',
    headers: ['card', 'customer', 'mode', 'status', 'balance', 'activity'],
    cells: (c) => [
      td(idLink('card', c.id), 'id'),
      td(idLink('customer', c.customer_id), 'id'),
      td(c.mode),
      td(c.status),
      td(`${money(c.balance_minor)} ${c.currency}`, 'num'),
      td(c.transactions, 'num'),
    ],
  },
  {
    read: 'transactions',
    caption: 'Card activity',
    headers: ['transaction', 'card', 'type', 'status', 'amount', 'occurred'],
    cells: (t) => [
      td(t.id, 'id'),
      td(idLink('card', t.card_id), 'id'),
      td(t.type),
      td(t.status),
      td(`${money(t.amount_minor)} ${t.currency}`, 'num'),
      td(t.occurred_at),
    ],
  },
  {
    read: 'deposits',
    caption: 'Deposits',
    headers: ['deposit', 'merchant', 'network', 'amount', 'credited', 'status'],
    cells: (x) => [
      td(x.id, 'id'),
      td(idLink('merchant', x.merchant_id), 'id'),
      td(x.network),
      td(`${x.asset_amount} ${x.asset}`, 'num'),
      td(money(x.credited_amount_minor), 'num'),
      td(x.status),
    ],
  },
  {
    read: 'webhook-endpoints',
    caption: 'Webhook endpoints',
    headers: ['endpoint', 'merchant', 'URL', 'state'],
    cells: (e) => [
      td(e.id, 'id'),
      td(idLink('merchant', e.merchant_id), 'id'),
      td(e.url, 'path'),
      e.disabled_at ? el('td', {}, `disabled ${e.disabled_at} `, enableButton(e.id)) : td('enabled'),
    ],
  },
  {
    read: 'webhook-deliveries',
    caption: 'Webhook deliveries (newest 200)',
    headers: ['delivery', 'event', 'endpoint', 'state', 'attempts', 'next retry', 'last answer'],
    rows: (list) => list.slice(-200).reverse(),
    cells: (x) => [
      td(x.id, 'id'),
      td(x.event_type || x.event_id),
      td(x.endpoint_id, 'id'),
      td(x.state),
      td(Array.isArray(x.attempts) ? x.attempts.length : '', 'num'),
      td(x.next_attempt_at),
      td(lastAnswer(x)),
    ],
  },
];

async function stateView() {
  log.onLive = null;
  const s = await readAll(['clock', ...STATE_TABLES.map((t) => t.read)]);
  const failed = Object.values(s).find((r) => !r.ok);
  if (failed) return put(main, el('h2', {}, 'State'), outcome(failed, ''));
  const clock = s.clock.json.data;
  put(
    main,
    el('h2', {}, 'State'),
    el('p', {}, 'Simulated clock: ', el('span', { class: 'mono' }, clock.now || JSON.stringify(clock))),
    STATE_TABLES.map((t) => {
      const data = s[t.read].json.data;
      const rows = (t.rows ? t.rows(data) : data).map((item) => el('tr', {}, t.cells(item)));
      return table(`${t.caption}${shownOf(s[t.read])}`, t.headers, rows);
    }),
  );
}

/** Re-enables an endpoint disabled after a dead delivery (its held deliveries go out at once). */
function enableButton(id) {
  return el(
    'span',
    {},
    actionButton(`Enable endpoint ${id}`, 'Enable', async () =>
      outcome(await control('POST', `/webhook-endpoints/${encodeURIComponent(id)}/enable`), 'Enabled.'),
    ),
  );
}

function lastAnswer(x) {
  const list = Array.isArray(x.attempts) ? x.attempts : [];
  const a = list[list.length - 1];
  if (!a) return '—';
  return [a.status ?? a.response_status, a.error].filter((v) => v !== undefined && v !== null).join(' ') || '—';
}

async function findRecord(list, id) {
  const r = await control('GET', `/${list}`);
  if (!r.ok) return { r };
  return { r, rec: r.json.data.find((x) => x.id === id) };
}

function fieldsOf(rec, skip = []) {
  return el(
    'dl',
    { class: 'fields' },
    Object.entries(rec)
      .filter(([k]) => !skip.includes(k))
      .map(([k, v]) => [
        el('dt', {}, k),
        el('dd', { class: 'mono' }, v === null ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v)),
      ]),
  );
}

async function customerView(id) {
  log.onLive = null;
  const { r, rec } = await findRecord('customers', id);
  if (!r.ok) return put(main, outcome(r, ''));
  if (!rec) return put(main, el('h2', {}, id), el('p', {}, 'No such customer among the newest 1,000.'));
  put(
    main,
    el('p', {}, link('#/state', '← State')),
    el('h2', {}, `Customer ${rec.id}`),
    el('p', {}, 'KYC status: ', el('strong', { id: 'kyc-status' }, rec.kyc_status)),
    el(
      'section',
      { class: 'panel', 'aria-label': 'Force a KYC verdict' },
      el('h3', {}, 'Force a KYC verdict'),
      controlForm(
        'Force KYC',
        [
          { name: 'verdict', label: 'Verdict', options: ['approved', 'rejected'] },
          { name: 'reason', label: 'Reason (rejected)', placeholder: 'document_expired' },
        ],
        'Force verdict',
        async (v) => {
          const r2 = await control('POST', `/customers/${encodeURIComponent(id)}/kyc`, {
            verdict: v.verdict,
            ...(v.reason ? { reason: v.reason } : {}),
          });
          if (r2.ok) document.getElementById('kyc-status').textContent = r2.json.data.kyc_status;
          return { r: r2, done: `KYC ${r2.ok ? r2.json.data.kyc_status : ''}.` };
        },
      ),
    ),
    el('section', { class: 'panel' }, el('h3', {}, 'Record'), fieldsOf(rec)),
  );
}

async function cardView(id) {
  log.onLive = null;
  const [{ r, rec }, tx] = await Promise.all([
    findRecord('cards', id),
    control('GET', `/transactions?card_id=${encodeURIComponent(id)}`),
  ]);
  if (!r.ok) return put(main, outcome(r, ''));
  if (!rec) return put(main, el('h2', {}, id), el('p', {}, 'No such card among the newest 1,000.'));
  put(
    main,
    el('p', {}, link('#/state', '← State')),
    el('h2', {}, `Card ${rec.id}`),
    el(
      'p',
      {},
      'Status ',
      el('strong', {}, rec.status),
      ', balance ',
      el('strong', { id: 'card-balance' }, `${money(rec.balance_minor)} ${rec.currency}`),
      ', customer ',
      idLink('customer', rec.customer_id),
    ),
    rec.status === 'pending'
      ? el(
          'section',
          { class: 'panel', 'aria-label': 'Finish provisioning' },
          el('h3', {}, 'Complete or fail the pending card'),
          controlForm(
            'Provision',
            [{ name: 'outcome', label: 'Outcome', options: ['active', 'failed'] }],
            'Finish',
            async (v) => {
              const r2 = await control('POST', `/cards/${encodeURIComponent(id)}/provision`, { outcome: v.outcome });
              return { r: r2, done: `The card is ${r2.ok ? r2.json.data.status : ''}.` };
            },
          ),
        )
      : null,
    el(
      'section',
      { class: 'panel', 'aria-label': 'Add card activity' },
      el('h3', {}, 'Add card activity (issuer-reported)'),
      controlForm(
        'Add activity',
        [
          { name: 'type', label: 'Type', options: ['purchase', 'refund', 'reversal', 'fee', 'withdrawal', 'deposit'] },
          { name: 'status', label: 'Status', options: ['completed', 'pending', 'declined', 'reversed'] },
          { name: 'amount_minor', label: 'Amount (minor units)', type: 'number', value: '1000' },
        ],
        'Add',
        async (v) => {
          const r2 = await control('POST', `/cards/${encodeURIComponent(id)}/transactions`, {
            type: v.type,
            status: v.status,
            amount_minor: Number(v.amount_minor),
          });
          return { r: r2, done: `Recorded ${r2.ok ? r2.json.data.id : ''}.` };
        },
      ),
    ),
    tx.ok
      ? table(
          'Activity',
          ['transaction', 'type', 'status', 'amount', 'occurred'],
          tx.json.data.map((t) =>
            el(
              'tr',
              {},
              td(t.id, 'id'),
              td(t.type),
              td(t.status),
              td(`${money(t.amount_minor)} ${t.currency}`, 'num'),
              td(t.occurred_at),
            ),
          ),
        )
      : outcome(tx, ''),
    el('section', { class: 'panel' }, el('h3', {}, 'Record'), fieldsOf(rec)),
  );
}

async function merchantView(id) {
  log.onLive = null;
  const { r, rec } = await findRecord('merchants', id);
  if (!r.ok) return put(main, outcome(r, ''));
  if (!rec) return put(main, el('h2', {}, id), el('p', {}, 'No such merchant.'));
  put(
    main,
    el('p', {}, link('#/state', '← State')),
    el('h2', {}, `Merchant ${rec.id}${rec.default ? ' (the banner\u2019s)' : ''}`),
    table(
      'Keys (never a secret)',
      ['key', 'mode', 'scopes', 'IP allowlist', 'revoked', 'expires'],
      rec.keys.map((k) =>
        el(
          'tr',
          {},
          td(k.key_id, 'id'),
          td(k.mode),
          td(k.scopes.join(', ')),
          td(k.ip_allowlist.join(', ') || 'any'),
          td(k.revoked ? 'yes' : 'no'),
          td(k.expires_at),
        ),
      ),
    ),
  );
}

// ---------------------------------------------------------------------------------------
// The controls

const panel = (label, title, ...kids) =>
  el('section', { class: 'panel', 'aria-label': label }, el('h3', {}, title), kids);
const idOf = (r) => (r.ok ? r.json.data.id : '');

/** The panels of the controls view, each one form making one control call; `choices`: the control plane's lists of event types and fault kinds. */
function controlPanels(refresh, choices) {
  return [
    panel(
      'Simulated clock',
      'Advance the simulated clock',
      controlForm(
        'Advance clock',
        [{ name: 'seconds', label: 'Seconds', type: 'number', value: '3600' }],
        'Advance',
        async (v) => {
          const r = await control('POST', '/clock/advance', { seconds: Number(v.seconds) });
          return { r, done: `The simulated clock is at ${r.ok ? r.json.data.now : ''}.` };
        },
      ),
    ),
    panel(
      'Deposit',
      'Add an incoming deposit (live wallet)',
      controlForm(
        'Add deposit',
        [
          { name: 'network', label: 'Network', value: 'trc20' },
          { name: 'asset_amount', label: 'Amount (USDT)', value: '100.00' },
          { name: 'status', label: 'Status', options: ['credited', 'pending', 'flagged'] },
        ],
        'Add deposit',
        async (v) => {
          const r = await control('POST', '/deposits', v);
          return { r, done: `Deposit ${idOf(r)} ${r.ok ? r.json.data.status : ''}.` };
        },
      ),
    ),
    panel(
      'Emit an event',
      'Emit an event (sample data)',
      controlForm(
        'Emit event',
        [
          { name: 'type', label: 'Type', options: choices.event_types },
          { name: 'mode', label: 'Mode', options: ['test', 'live'] },
        ],
        'Emit',
        async (v) => {
          const r = await control('POST', '/events', v);
          return { r, done: `Event ${idOf(r)} recorded (delivered to the merchant's endpoints).` };
        },
      ),
    ),
    panel(
      'Add a fault',
      'Add a fault',
      controlForm(
        'Add fault',
        [
          { name: 'operation', label: 'Operation', value: 'issue' },
          { name: 'kind', label: 'Kind', options: choices.fault_kinds },
          { name: 'count', label: 'Count', type: 'number', value: '1' },
          { name: 'ms', label: 'ms (slow)', type: 'number' },
        ],
        'Add fault',
        async (v) => {
          const body = {
            operation: v.operation,
            kind: v.kind,
            count: Number(v.count),
            ...(v.ms ? { ms: Number(v.ms) } : {}),
          };
          const r = await control('POST', '/faults', body);
          if (r.ok) setTimeout(refresh, 800);
          return { r, done: `Fault ${idOf(r)} added.` };
        },
      ),
    ),
  ];
}

/** A button making one call, its outcome said beside it. */
function actionButton(label, text, run) {
  const out = el('span', { 'aria-live': 'polite' });
  const button = el('button', { type: 'button', class: 'secondary', 'aria-label': label }, text);
  button.addEventListener('click', async () => put(out, await run()));
  return [button, out];
}

function faultRow(f, refresh) {
  const [clear, out] = actionButton(`Clear fault ${f.id}`, 'Clear', async () => {
    const r = await control('DELETE', `/faults/${encodeURIComponent(f.id)}`);
    if (r.ok) refresh();
    return outcome(r, 'Cleared.');
  });
  return el(
    'tr',
    {},
    td(f.id, 'id'),
    td(f.operation),
    td(f.kind),
    td(`${f.remaining} of ${f.count}`, 'num'),
    td(f.merchant_id || 'any'),
    el('td', {}, clear, out),
  );
}

function snapshotRow(s) {
  const [restore, out] = actionButton(`Restore snapshot ${s.name}`, 'Restore', async () =>
    outcome(await control('POST', `/snapshots/${encodeURIComponent(s.name)}/restore`), `Restored ${s.name}.`),
  );
  return el('tr', {}, td(s.name, 'id'), td(s.saved_at || s.created_at), el('td', {}, restore, out));
}

async function controlsView() {
  log.onLive = null;
  const [faults, snapshots, choices] = await Promise.all([
    control('GET', '/faults'),
    control('GET', '/snapshots'),
    call('GET', '/choices'),
  ]);
  const refresh = () => controlsView();
  put(
    main,
    el('h2', {}, 'Controls'),
    el('p', { class: 'muted' }, 'Each control is the control plane\u2019s own call, with its rules and its answers.'),
    el(
      'div',
      { class: 'grid' },
      controlPanels(refresh, choices.ok ? choices.json.data : { event_types: [], fault_kinds: [] }),
    ),
    faults.ok
      ? table(
          'Faults waiting',
          ['fault', 'operation', 'kind', 'remaining', 'merchant', 'clear'],
          faults.json.data.map((f) => faultRow(f, refresh)),
        )
      : outcome(faults, ''),
    panel(
      'Snapshots',
      'Snapshots',
      controlForm('Save snapshot', [{ name: 'name', label: 'Name', placeholder: 'before-test' }], 'Save', async (v) => {
        const r = await control('POST', '/snapshots', { name: v.name });
        if (r.ok) setTimeout(refresh, 800);
        return { r, done: `Saved ${v.name}.` };
      }),
      snapshots.ok
        ? table('Saved snapshots', ['name', 'saved', 'restore'], snapshots.json.data.map(snapshotRow))
        : outcome(snapshots, ''),
    ),
  );
}

// ---------------------------------------------------------------------------------------
// The diagnosis box

const FORM_NAMES = { http: 'raw HTTP', curl: 'a curl command line', har: 'a HAR file' };
const requestLine = (q) => `${q.method} ${q.path}${q.query ? `?${q.query}` : ''}`;

/** What the diagnosis box found: the form read, one line per request (a HAR file), each diagnosis. */
function pastedResult({ form, requests, total }) {
  return [
    el('p', {}, `Read as ${FORM_NAMES[form] || form}: ${total} request${total === 1 ? '' : 's'}.`),
    requests.length > 1
      ? table(
          'Every API request of the file',
          ['#', 'request', 'key', 'verdict'],
          requests.map((q, i) =>
            el(
              'tr',
              {},
              td(i + 1, 'num'),
              td(requestLine(q), 'path'),
              td(q.key_id, 'id'),
              td(`${q.verdict}: ${q.message}`),
            ),
          ),
        )
      : null,
    requests.map((q) => el('section', { class: 'panel' }, el('h3', {}, requestLine(q)), diagnosisBlock(q))),
  ];
}

async function diagnoseView() {
  log.onLive = null;
  const merchants = await control('GET', '/merchants');
  const keys = merchants.ok ? merchants.json.data.flatMap((m) => m.keys.map((k) => k.key_id)) : [];
  const text = el('textarea', {
    id: 'paste',
    name: 'text',
    spellcheck: 'false',
    placeholder:
      "POST /api/v1/cards HTTP/1.1\nX-Api-Key: ...\n\n{...}\n\nor: curl 'http://127.0.0.1:4010/api/v1/...' -H 'X-Api-Key: ...' --data-raw '...'\n\nor a HAR file",
  });
  const key = el(
    'select',
    { id: 'paste-key', name: 'key_id' },
    el('option', { value: '' }, 'the key the request names'),
    keys.map((k) => el('option', { value: k }, k)),
  );
  const out = el('div', { 'aria-live': 'polite' });
  const form = el(
    'form',
    { 'aria-label': 'Diagnose a pasted request' },
    el('label', { for: 'paste' }, 'Failing request: raw HTTP, a curl command line (“Copy as cURL”) or a HAR file'),
    text,
    el(
      'p',
      {},
      el('label', { for: 'paste-key' }, 'Diagnose with the secret of ', key),
      ' ',
      el('button', { type: 'submit' }, 'Diagnose'),
    ),
  );
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const r = await call('POST', '/diagnose', { text: text.value, key_id: key.value });
    if (!r.ok) return put(out, outcome(r, ''));
    put(out, pastedResult(r.json.data));
  });
  put(
    main,
    el('h2', {}, 'Diagnose a failing request'),
    el(
      'p',
      { class: 'muted' },
      'The request does not need to have reached this mock: it is checked with the secret of a key of this mock, by the engine of `cardctl sign diagnose`.',
    ),
    form,
    out,
  );
}

// ---------------------------------------------------------------------------------------
// Navigation and the live stream

const routes = [
  [/^#\/requests\/(.+)$/, (m) => requestView(decodeURIComponent(m[1]))],
  [/^#\/customer\/(.+)$/, (m) => customerView(decodeURIComponent(m[1]))],
  [/^#\/card\/(.+)$/, (m) => cardView(decodeURIComponent(m[1]))],
  [/^#\/merchant\/(.+)$/, (m) => merchantView(decodeURIComponent(m[1]))],
  [/^#\/state$/, stateView],
  [/^#\/controls$/, controlsView],
  [/^#\/diagnose$/, diagnoseView],
  [/^/, requestsView],
];

function navigate() {
  if (loggedOut) return;
  const hash = location.hash || '#/requests';
  const section = hash.split('/')[1] || 'requests';
  for (const a of document.querySelectorAll('nav a')) {
    const current =
      a.dataset.section === section ||
      (section === 'customer' || section === 'card' || section === 'merchant' ? a.dataset.section === 'state' : false);
    if (current) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  for (const [pattern, view] of routes) {
    const m = pattern.exec(hash);
    if (m) {
      view(m);
      break;
    }
  }
}

function connectLive() {
  const source = new EventSource(`${API}/live`);
  source.addEventListener('open', () => {
    liveBadge.textContent = 'live';
    liveBadge.className = 'live on';
    // what was logged between the page's first read and this stream's start (or while it was
    // reconnecting) is told by no event: read the first page once more
    if (log.onLive) log.onLive(0);
  });
  source.addEventListener('requests', (ev) => {
    let batch = { count: 0 };
    try {
      batch = JSON.parse(ev.data);
    } catch {
      return;
    }
    if (log.onLive) log.onLive(batch.count);
  });
  source.addEventListener('off', () => {
    liveBadge.textContent = 'request log off (--request-log 0)';
    source.close();
  });
  source.addEventListener('error', () => {
    liveBadge.textContent = 'reconnecting…';
    liveBadge.className = 'live';
  });
}

window.addEventListener('hashchange', navigate);
navigate();
connectLive();
