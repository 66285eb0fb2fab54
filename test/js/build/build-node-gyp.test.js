'use strict';
// scripts/build.js runs a node-gyp that can build this Node: with an old one (7.1.0, whose bin
// fails) reachable by require.resolve through NODE_PATH, npm's own (npm_config_node_gyp) or the
// bundled copy beside node is chosen and the old one is named as skipped; with only the old one
// reachable there is no build; and a failing build names the node-gyp it used.
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.join(__dirname, '..', '..', '..');
const buildScript = path.join(root, 'scripts', 'build.js');

// A node-gyp package at <dir>/node-gyp whose bin prints who it is and fails.
function fakeNodeGyp(dir, version) {
  const pkg = path.join(dir, 'node-gyp');
  fs.mkdirSync(path.join(pkg, 'bin'), { recursive: true });
  fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'node-gyp', version }));
  const bin = path.join(pkg, 'bin', 'node-gyp.js');
  fs.writeFileSync(bin, `console.error('FAKE NODE-GYP ${version} RAN'); process.exit(3);\n`);
  return bin;
}

// chooseNodeGyp() in a child whose NODE_PATH (read by Node at start-up) holds the old one.
function choose(env, nodePrefix) {
  const code = `
    const { chooseNodeGyp } = require(${JSON.stringify(buildScript)});
    let resolved = null;
    try { resolved = require.resolve('node-gyp/bin/node-gyp.js', { paths: [${JSON.stringify(root)}] }); } catch {}
    const opts = ${JSON.stringify(nodePrefix ? { nodePrefix } : {})};
    console.log(JSON.stringify({ resolved, ...chooseNodeGyp(opts) }));`;
  const r = spawnSync(process.execPath, ['-e', code], { env, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

function baseEnv(extra) {
  const env = {};
  for (const [k, v] of Object.entries(process.env))
    if (!/^npm_config_node_gyp$/i.test(k) && k !== 'NODE_PATH') env[k] = v;
  return { ...env, ...extra };
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-node-gyp-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
const nodePath = path.join(tmp, 'node-path');
const oldBin = fakeNodeGyp(nodePath, '7.1.0');
const npmBin = fakeNodeGyp(path.join(tmp, 'npm-own'), '11.2.0');
const ownProject = fs.existsSync(path.join(root, 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));

test(
  'npm_config_node_gyp wins over an old node-gyp on NODE_PATH',
  { skip: ownProject && 'the project has its own node-gyp, which require.resolve finds first' },
  () => {
    const r = choose(baseEnv({ NODE_PATH: nodePath, npm_config_node_gyp: npmBin }));
    assert.equal(r.resolved, oldBin, 'the old one is what require.resolve finds');
    assert.equal(r.chosen.bin, npmBin);
    assert.equal(r.chosen.version, '11.2.0');
    // Order, not only the version check: a recent enough one up the tree still comes after npm's.
    const recentDir = path.join(tmp, 'node-path-recent');
    const recent = fakeNodeGyp(recentDir, '10.5.0');
    const r2 = choose(baseEnv({ NODE_PATH: recentDir, npm_config_node_gyp: npmBin }));
    assert.equal(r2.resolved, recent);
    assert.equal(r2.chosen.bin, npmBin);
  },
);

test(
  "without npm_config_node_gyp, npm's bundled copy beside node is chosen and the old one skipped",
  { skip: ownProject && 'the project has its own node-gyp' },
  () => {
    // A node prefix of our own with npm's bundled node-gyp in its usual place.
    const prefix = path.join(tmp, 'prefix');
    const bundled = fakeNodeGyp(path.join(prefix, 'lib', 'node_modules', 'npm', 'node_modules'), '12.4.0');
    const r = choose(baseEnv({ NODE_PATH: nodePath }), prefix);
    assert.equal(r.resolved, oldBin);
    assert.equal(r.chosen.bin, bundled);
    assert.equal(r.chosen.source, "npm's bundled copy");
    // Only the old one reachable: nothing chosen, and it is reported as skipped with its version.
    const none = choose(baseEnv({ NODE_PATH: nodePath }), path.join(tmp, 'empty-prefix'));
    assert.equal(none.chosen, null);
    assert.deepStrictEqual(
      none.skipped.map((s) => [s.bin, s.version]),
      [[oldBin, '7.1.0']],
    );
  },
);

test("a failing build runs npm's node-gyp, not the old one on NODE_PATH, and names it", () => {
  // The fake 11.2.0 fails at once, so nothing is built (and this worktree's build/ is untouched).
  const r = spawnSync(process.execPath, [buildScript], {
    env: baseEnv({ npm_config_node_gyp: npmBin, NODE_PATH: nodePath }),
    encoding: 'utf8',
  });
  assert.equal(r.status, 3, r.stderr);
  assert.match(r.stderr, /FAKE NODE-GYP 11\.2\.0 RAN/);
  assert.doesNotMatch(r.stderr, /FAKE NODE-GYP 7\.1\.0/);
  assert.ok(
    r.stderr.includes(`ssr-native: the build failed with node-gyp 11.2.0 at ${npmBin} (npm's (npm_config_node_gyp))`),
    r.stderr,
  );
});
