'use strict';
// files/settled-loads.js: a resolution's answer may be remembered only while every load behind
// it is settled: a file found, or an absence or a directory the FileCache watches. A real
// FileCache and StaticEngine over a temporary tree.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { FileCache } = require('../../../lib/files/file-cache');
const { StaticEngine } = require('../../../lib/files/engine');
const { SettledLoads } = require('../../../lib/files/settled-loads');

const load = (loads, file) => new Promise((resolve) => loads.load(file, resolve));

test('found files and watched absences keep a resolution settled; an unwatched absence does not', async (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'settled-'));
  fs.mkdirSync(path.join(root, 'dir'));
  fs.writeFileSync(path.join(root, 'a.js'), 'a');
  const cache = new FileCache();
  t.after(() => {
    cache.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  // a mount's root: its absences are watched from there down
  const mounted = new StaticEngine(cache, { top: root });
  const loads = new SettledLoads(mounted);
  assert.equal((await load(loads, path.join(root, 'a.js'))).status, 'loaded');
  assert.equal((await loads.get(path.join(root, 'a.js'))).status, 'hit');
  const missing = await load(loads, path.join(root, 'missing.js'));
  assert.equal(missing.status, 'error');
  assert.equal(missing.settled, true);
  assert.equal((await loads.get(path.join(root, 'dir'))).status, 'directory');
  assert.equal(loads.settled, true, 'a hit, a load, a watched absence and a watched directory');

  // no root to watch from: the absence may end without the generation moving
  const shared = new SettledLoads(new StaticEngine(cache, {}));
  const unwatched = await shared.get(path.join(root, 'other-missing.js'));
  assert.equal(unwatched.status, 'error');
  assert.notEqual(unwatched.settled, true);
  assert.equal(shared.settled, false);
  // and stays unsettled whatever comes after
  await shared.get(path.join(root, 'a.js'));
  assert.equal(shared.settled, false);

  // nor is a directory found there (it may become a file, or lose its index, unseen)
  const throughDirectory = new SettledLoads(new StaticEngine(cache, {}));
  const dir = await throughDirectory.get(path.join(root, 'dir'));
  assert.equal(dir.status, 'directory');
  assert.notEqual(dir.settled, true);
  assert.equal(throughDirectory.settled, false);
});
