'use strict';
// Issue 52, finding 2, as an attacker behind a proxy that passes the client's Host unchanged:
// with `host: false, allowedHosts: ['victim.example']`, a request naming the server's own port
// (`Host: victim.example:<local port>`) must never be stored under the host-less key, cold or
// through a stale entry's background refresh. `s` is a test site (cache-security*.test.js) whose
// page builds its script URL from the Host it sees, under 'public, max-age=60,
// stale-while-revalidate=600', with a settable clock.
const assert = require('node:assert/strict');

const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function localPortNeverShared(s) {
  const warnings = [];
  const onWarning = (w) => w.code === 'SSR_NATIVE_CACHE_HOST_NOT_ALLOWED' && warnings.push(w);
  process.on('warning', onWarning);
  try {
    const attacker = `victim.example:${new URL(s.url).port}`;
    const plain = { headers: { host: 'victim.example' } };
    const attack = { headers: { host: attacker } };
    // cold: the attacker's page is rendered for the attacker only
    assert.match((await s.get('/', attack)).text, new RegExp(`//${attacker}/app\\.js`));
    const first = await s.get('/', plain);
    assert.match(first.text, /^<script src="\/\/victim\.example\/app\.js"><\/script> 2$/, `visitor got ${first.text}`);
    assert.equal((await s.get('/', plain)).text, first.text, 'the plain Host is stored');
    // stale: the attacker's request is no stale hit, so no refresh renders with its Host
    s.clock.now += 61_000;
    await s.get('/', attack);
    await delay(50);
    assert.equal(s.cache.stats().refreshes, 0, 'no refresh started by the attacker');
    for (let i = 0; i < 100 && s.cache.stats().refreshing > 0; i++) await delay(10);
    s.clock.now += 1;
    await s.get('/', plain); // stale for the visitor: refreshed with the visitor's Host
    for (let i = 0; i < 100 && (s.cache.stats().refreshing > 0 || s.cache.stats().refreshes === 0); i++)
      await delay(10);
    await delay(20);
    const later = await s.get('/', plain);
    assert.match(
      later.text,
      /^<script src="\/\/victim\.example\/app\.js"><\/script> \d+$/,
      `visitor got ${later.text}`,
    );
    assert.equal(s.cache.stats().hostNotAllowed, 2);
    await delay(0);
    assert.equal(warnings.length, 1, 'one warning (rate-limited)');
    assert.match(warnings[0].message, new RegExp(attacker.replace(/\./g, '\\.')));
  } finally {
    process.off('warning', onWarning);
  }
}

/** A refused Host is warned about even after others were allowed (once a minute at most). */
async function refusedAfterAllowedWarns(s) {
  const warnings = [];
  const onWarning = (w) => w.code === 'SSR_NATIVE_CACHE_HOST_NOT_ALLOWED' && warnings.push(w);
  process.on('warning', onWarning);
  try {
    await s.get('/', { headers: { host: 'victim.example' } });
    await s.get('/', { headers: { host: 'victim.example:8080' } });
    await s.get('/', { headers: { host: 'evil.example' } });
    await delay(0);
    assert.equal(s.cache.stats().hostNotAllowed, 2);
    assert.equal(warnings.length, 1, 'one warning for the two refusals');
    assert.match(warnings[0].message, /victim\.example:8080/);
  } finally {
    process.off('warning', onWarning);
  }
}

module.exports = { localPortNeverShared, refusedAfterAllowedWarns };
