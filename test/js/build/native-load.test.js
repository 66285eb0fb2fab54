'use strict';
// lib/native.js, the addon loader, in a copy of the package layout: a candidate that exists but
// does not load (another libc, a truncated file) is skipped for the next one, and when none
// loads the error says how to compile under today's npm, which skips a dependency's install
// script until the project approves it (npm 12+).
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..', '..');
const PREBUILD_DIR = path.join('prebuilds', `${process.platform}-${process.arch}`);

// The addon this checkout loads (a local build, else the shipped prebuild).
function realAddon() {
  for (const file of [path.join('build', 'Release', 'ssr_native.node'), path.join(PREBUILD_DIR, 'node.napi.node')]) {
    if (fs.existsSync(path.join(ROOT, file))) return path.join(ROOT, file);
  }
  throw new Error('no addon in this checkout: run npm install first');
}

// A package folder holding lib/native.js and the given files ({ relative path: contents }).
function packageWith(files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-load-'));
  fs.mkdirSync(path.join(dir, 'lib'));
  fs.copyFileSync(path.join(ROOT, 'lib', 'native.js'), path.join(dir, 'lib', 'native.js'));
  for (const [file, contents] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), contents);
  }
  return dir;
}

// Loads that package's lib/native.js in a child: { loaded: crc32('123456789') } or { code, message }.
function loadIn(dir, extraEnv = {}) {
  const script = `
    try {
      const native = require(${JSON.stringify(path.join(dir, 'lib', 'native.js'))});
      console.log(JSON.stringify({ loaded: native.crc32('123456789') }));
    } catch (err) {
      console.log(JSON.stringify({ code: err.code, message: err.message }));
    }`;
  // without the override a sanitized run sets (this file tests the candidates themselves)
  const env = { ...process.env, ...extraEnv };
  delete env.SSR_NATIVE_ADDON;
  if (extraEnv.SSR_NATIVE_ADDON !== undefined) env.SSR_NATIVE_ADDON = extraEnv.SSR_NATIVE_ADDON;
  const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout);
}

test('a build that does not load is skipped for the prebuild', (t) => {
  const dir = packageWith({
    [path.join('build', 'Release', 'ssr_native.node')]: 'not a shared object',
    [path.join(PREBUILD_DIR, 'node.napi.node')]: fs.readFileSync(realAddon()),
  });
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  assert.deepEqual(loadIn(dir), { loaded: 0xcbf43926 });
});

test('where nothing loads, the error names each attempt and how to compile with npm 12, pnpm and Bun', (t) => {
  const dir = packageWith({ [path.join(PREBUILD_DIR, 'node.napi.node')]: 'truncated' });
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const { code, message } = loadIn(dir);
  assert.equal(code, 'ERR_SSR_NATIVE_NOT_BUILT', message);
  assert.match(message, new RegExp(`no native addon loads on ${process.platform}-${process.arch}`));
  assert.ok(message.includes(`${path.join(PREBUILD_DIR, 'node.napi.node')}: `), message); // the failed attempt
  assert.ok(!message.includes('build/Release'), message); // absent candidates are not attempts
  assert.ok(message.includes('`npm install-scripts approve ssr-native`'), message);
  assert.ok(message.includes('`npm rebuild ssr-native`'), message);
  // pnpm 12.23 and Bun 1.4.5, checked with a package whose install script they blocked: each of
  // these commands records the approval and runs the script at once.
  assert.ok(message.includes('`pnpm approve-builds ssr-native`'), message);
  assert.ok(message.includes('`bun pm trust ssr-native`'), message);
});

test('SSR_NATIVE_ADDON names the one binary to load (a sanitized build), and a path that does not load is an error, not a fallback', (t) => {
  const dir = packageWith({
    [path.join('build', 'Release', 'ssr_native.node')]: 'not a shared object',
    [path.join(PREBUILD_DIR, 'node.napi.node')]: fs.readFileSync(realAddon()),
    [path.join('elsewhere', 'chosen.node')]: fs.readFileSync(realAddon()),
  });
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  assert.deepEqual(loadIn(dir, { SSR_NATIVE_ADDON: path.join(dir, 'elsewhere', 'chosen.node') }), {
    loaded: 0xcbf43926,
  });
  const missing = loadIn(dir, { SSR_NATIVE_ADDON: path.join(dir, 'elsewhere', 'missing.node') });
  assert.equal(missing.code, 'ERR_SSR_NATIVE_NOT_BUILT');
  assert.match(missing.message, /SSR_NATIVE_ADDON=.*missing\.node does not load/);
  // the prebuild would have loaded: it is not used
  const broken = loadIn(dir, { SSR_NATIVE_ADDON: path.join(dir, 'build', 'Release', 'ssr_native.node') });
  assert.equal(broken.code, 'ERR_SSR_NATIVE_NOT_BUILT');
});
