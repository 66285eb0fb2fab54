'use strict';
// Segments made by tests: each test file makes its segments in a folder of its own under /dev/shm
// (a tmpfs, mode 0700) and removes it; leftovers() lists what a test run left behind under
// its own prefix, in /dev/shm and in the default folder sharedMemoryStore would pick
// ($XDG_RUNTIME_DIR / $RUNTIME_DIRECTORY), so a test can assert it left nothing.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { defaultDir } = require('../../../lib/cache/shared-memory-segment');

const TMPFS = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();

/** A fresh 0700 folder for segments, named with `prefix`; remove it with fs.rmSync(recursive). */
function segmentDir(prefix) {
  return fs.mkdtempSync(path.join(TMPFS, `${prefix}-`));
}

/** Names in /dev/shm and the default folder that start with `prefix` or hold a segment named with it. */
function leftovers(prefix) {
  const found = [];
  for (const dir of new Set([TMPFS, defaultDir()])) {
    let names;
    try {
      names = fs.readdirSync(dir);
    } catch {
      continue;
    }
    // `${prefix}-`, not the prefix alone: `unit-158` must not claim `unit-1580-…`, left by another run
    for (const name of names)
      if (name.startsWith(`${prefix}-`) || name.startsWith(`ssr-native-cache-${prefix}-`))
        found.push(path.join(dir, name));
  }
  return found;
}

/**
 * A test file's segments: its folder (segmentDir) and fresh() names under `prefix`; after the file's
 * tests the folder goes and nothing named with the prefix may be left.
 */
function testSegments(prefix) {
  const test = require('node:test');
  const assert = require('node:assert/strict');
  const dir = segmentDir(prefix);
  let seq = 0;
  test.after(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    assert.deepEqual(leftovers(prefix), [], 'every segment made here is removed');
  });
  return { dir, fresh: () => `${prefix}-${++seq}` };
}

module.exports = { TMPFS, segmentDir, leftovers, testSegments };
