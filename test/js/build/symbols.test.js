'use strict';
// The built addon may only need dynamic symbols every runtime provides (Node-API and the system
// libraries it declares): a symbol only Node's binary exports crashes Bun at its first call.
const test = require('node:test');
const assert = require('node:assert');
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const { checkBinary, defaultBinaries } = require('../../../scripts/check-symbols.js');

const hasReadelf = !spawnSync('readelf', ['--version']).error;

test(
  'the addon needs no dynamic symbol beyond Node-API, libc, libstdc++ and libgcc',
  { skip: !hasReadelf && 'readelf (binutils) is not installed' },
  () => {
    const files = defaultBinaries();
    assert.ok(files.length > 0, 'no built addon found');
    for (const file of files) {
      const result = checkBinary(file);
      assert.deepEqual(result.problems, [], path.relative(process.cwd(), file));
      // The parse found the symbols at all (an empty parse would pass the check above).
      assert.ok(result.napi.includes('napi_create_function'), 'Node-API symbols not found by the parser');
    }
  },
);
