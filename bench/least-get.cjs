// The least a Node.js process can do for `cards get ID`, as a yardstick for bench/binary.mjs:
// read the profile file, one HMAC and a random UUID with node:crypto, one HTTP GET with
// node:http, print the answer. It does not sign as the API wants (the mock answers 401, a body
// of about the same size): what it measures is the cost of the built-in modules and of one
// request that any Node program making the call pays, cardctl or not.
// Usage: node bench/least-get.cjs CARD_ID (CARDCTL_CONFIG_DIR: a folder with profiles.json)
'use strict';
const { readFileSync } = require('node:fs');
const { createHmac, randomUUID } = require('node:crypto');
const http = require('node:http');

const store = JSON.parse(readFileSync(`${process.env.CARDCTL_CONFIG_DIR}/profiles.json`, 'utf8'));
const profile = Object.values(store.profiles ?? store)[0] ?? {};
const url = new URL(`${profile.baseUrl ?? 'http://127.0.0.1:9/api/v1'}/cards/${process.argv[2]}`);
const signature = createHmac('sha256', String(profile.secret ?? 'x'))
  .update(`GET\n${url.pathname}\n${Date.now()}`)
  .digest('base64');
http.get(url, { headers: { authorization: `Signature ${signature}`, 'x-request-id': randomUUID() } }, (res) => {
  const chunks = [];
  res.on('data', (c) => chunks.push(c));
  res.on('end', () => process.stdout.write(`${Buffer.concat(chunks)}\n`));
});
