'use strict';
// The dictionary oracle, played out (issue 42). An attacker decides what the learned dictionary
// holds: right after a start, every page it learns from is a public search page reflecting the
// attacker's query, on 36 distinct paths. For each guess in a seeded budget (one of them the
// victim's real API token), the attacker fills a fresh dictionary with `Your API token: <guess>`,
// then the victim, signed in, loads their private account page (the token on it) naming that
// dictionary in Available-Dictionary, and the attacker reads the length of the answer (what a
// network observer sees through TLS). The shortest answer is the attacker's pick.
//
// By default the private page is never compressed against the learned dictionary, so its length
// is the same for every guess: the attacker learns nothing and picks at chance (1 in the budget).
// With `privateResponses: true` (the documented opt-in) the same attack finds the token: the
// control that shows this test can see the oracle.
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const express = require('express53');
const compression = require('../../../lib/express/compression');
const { available, unavailableReason } = require('../../../lib/compression/dcz');
const { request } = require('../helpers/http');
const { mulberry32 } = require('../helpers/seeded-random');

const skip = available ? false : `libzstd is not available: ${unavailableReason}`;
const SEED = Number(process.env.ORACLE_SEED || 4242);
const TRIALS = 3;
const BUDGET = 12; // guesses per trial, the token among them
const PATHS = 36; // distinct public pages the attacker has the dictionary learn from
const ACCEPT = 'gzip, deflate, br, zstd, dcb, dcz';

const MENU = ['Garden', 'Kitchen', 'Travel', 'Cameras', 'Laptops', 'Bicycles', 'Coffee', 'Lamps', 'Chairs', 'Boots']
  .map((name) => `<li class="menu-item"><a class="menu-link" href="/c/${name.toLowerCase()}">${name}</a></li>`)
  .join('');
const layout = (title, main) =>
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>' +
  title +
  '</title><link rel="stylesheet" href="/styles-5f1c.css"></head><body><nav class="navbar"><a href="/">Shop</a>' +
  '<a href="/products">Products</a><a href="/deals">Deals</a><a href="/account">Account</a></nav>' +
  `<aside><ul class="menu">${MENU}</ul></aside><main>` +
  main +
  '</main><footer><p>&copy; 2026 Shop, Inc</p><a href="/help">Help</a><a href="/privacy">Privacy</a></footer>' +
  '<script src="/main-81bd0e.js" type="module"></script></body></html>';

const escape = (text) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const hex = (random, n) => Array.from({ length: n }, () => Math.floor(random() * 16).toString(16)).join('');

function app(options, token) {
  const middleware = compression({ dictionary: options });
  const site = express();
  site.use(middleware);
  // public, reflecting the query (escaped, as any template does): the attacker's lever
  site.get('/search/:n', (req, res) => {
    res.set('Cache-Control', 'public, max-age=60');
    const q = escape(String(req.query.q || '').slice(0, 200));
    res.type('html').send(layout(`Search ${req.params.n}`, `<h1>Results</h1><p>You searched: ${q}</p><ul></ul>`));
  });
  // private: the victim's token, for the signed-in visitor only
  site.get('/account', (req, res) => {
    if (req.headers.cookie !== 'sid=victim') return res.status(401).end();
    res.set('Cache-Control', 'private, no-store');
    res.type('html').send(layout('Account', `<h1>Your account</h1><p>Your API token: ${token}</p>`));
  });
  return { site, middleware };
}

async function victimLength(options, token, guess) {
  const { site, middleware } = app(options, token);
  const server = await new Promise((resolve) => {
    const s = site.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${server.address().port}`;
  try {
    for (let n = 0; n < PATHS; n++) {
      await request(`${url}/search/${n}?q=${encodeURIComponent(`Your API token: ${guess}`)}`);
    }
    const until = Date.now() + 20000;
    while (middleware.dictionary.current === null) {
      assert.ok(Date.now() < until, 'no dictionary was learned');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const dictionary = middleware.dictionary.current.bytes;
    assert.ok(dictionary.includes(`Your API token: ${guess}`), 'the attacker chose the dictionary');
    const hash = crypto.createHash('sha256').update(dictionary).digest('base64');
    const answer = await request(`${url}/account`, {
      headers: { cookie: 'sid=victim', 'accept-encoding': ACCEPT, 'available-dictionary': `:${hash}:` },
    });
    assert.equal(answer.status, 200);
    return { length: answer.body.length, coding: answer.headers['content-encoding'] };
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

// Each trial: a seeded token and budget; the attacker picks the guess with the shortest answer,
// a tie broken at random (seeded). Returns how many trials found the token, and every answer.
async function attack(options, seed) {
  const random = mulberry32(seed);
  let found = 0;
  const trials = [];
  for (let trial = 0; trial < TRIALS; trial++) {
    const token = hex(random, 8);
    const guesses = Array.from({ length: BUDGET }, () => hex(random, 8));
    guesses[Math.floor(random() * BUDGET)] = token;
    const answers = [];
    for (const guess of guesses) answers.push(await victimLength(options, token, guess));
    const shortest = Math.min(...answers.map((a) => a.length));
    const ties = guesses.filter((_, i) => answers[i].length === shortest);
    const pick = ties[Math.floor(random() * ties.length)];
    if (pick === token) found++;
    trials.push({ token, guesses, answers });
  }
  return { found, trials };
}

test('dictionary oracle: an attacker who chose the dictionary learns nothing of a private page', { skip }, async () => {
  const { found, trials } = await attack({}, SEED);
  for (const { token, answers } of trials) {
    const where = `seed ${SEED}, token ${token}: ${JSON.stringify(answers)}`;
    assert.ok(
      answers.every((a) => a.coding !== 'dcz'),
      `the private page went out in dcz (${where})`,
    );
    // the same length whatever the dictionary holds: no signal, so the pick is a coin toss
    assert.equal(new Set(answers.map((a) => a.length)).size, 1, `the length depends on the guess (${where})`);
  }
  // chance is TRIALS / BUDGET = 0.25 expected finds; all three would be a 1 in 1728 draw
  assert.ok(found < TRIALS, `the token was found in every trial (seed ${SEED})`);
  assert.ok(
    trials.every((t) => t.answers.every((a) => a.coding === 'br')),
    'compressed, without the dictionary',
  );
});

test('dictionary oracle: with privateResponses opted in, the same attack finds the token', { skip }, async () => {
  const { found, trials } = await attack({ privateResponses: true }, SEED);
  const detail = trials.map((t) => `${t.token}: ${t.answers.map((a) => a.length).join(' ')}`).join('; ');
  assert.ok(
    trials.every((t) => t.answers.every((a) => a.coding === 'dcz')),
    'opted in, the page is dcz',
  );
  assert.equal(found, TRIALS, `seed ${SEED}: found ${found} of ${TRIALS} (${detail})`);
});
