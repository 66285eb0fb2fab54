'use strict';
// allowedHosts read as a table (lib/cache/request-inputs.js hostAllowList): with the Host in the
// key an entry without a port allows any port; with host: false no entry matches a Host whose
// port it does not spell (issue 52, finding 2), for names and wildcards alike.
const test = require('node:test');
const assert = require('node:assert/strict');
const { hostAllowList } = require('../../../lib/cache/request-inputs');

const ENTRIES = ['victim.example', 'victim.example:8080', '*.shop.example', '*.shop.example:8443', 'localhost:4200'];
// [Host, allowed while keyed, allowed with host: false]
const TABLE = [
  ['victim.example', true, true],
  ['VICTIM.example.', true, true],
  ['victim.example:8080', true, true],
  ['victim.example:08080', true, true],
  ['victim.example:4000', true, false],
  ['victim.example:80', true, false],
  ['a.shop.example', true, true],
  ['a.shop.example:8443', true, true],
  ['a.shop.example:4000', true, false],
  ['shop.example', false, false],
  ['localhost:4200', true, true],
  ['localhost', false, false],
  ['localhost:4000', false, false],
  ['evil.example', false, false],
  ['victim.example:1@evil.example', false, false],
];

test('allowedHosts: ports matched exactly under host: false, any port while the Host is keyed', () => {
  const keyed = hostAllowList(ENTRIES, { anyPort: true });
  const hostless = hostAllowList(ENTRIES, { anyPort: false });
  for (const [host, whileKeyed, withoutHost] of TABLE) {
    assert.equal(keyed(host), whileKeyed, `keyed: ${host}`);
    assert.equal(hostless(host), withoutHost, `host: false: ${host}`);
    // the socket's local port is no longer an input: a second argument changes nothing
    assert.equal(hostless(host, 4000), withoutHost, `host: false, local port 4000: ${host}`);
  }
  assert.throws(() => hostAllowList(['*.shop.example:x']), /must be host\[:port\] patterns/);
});
