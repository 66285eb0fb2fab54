'use strict';
// Two behaviours @fastify/static 10.1.11's own suite found different in ours, now the same: an
// invalid onFile option surfaces only when @fastify/send would run, so a request denied before
// that (allowedPath refusing it, a relative sendFile without a root) gets the peer's 404 rather
// than a 500; and wildcard: false skips a subdirectory it cannot read, as the peer's glob does,
// instead of failing registration with EACCES.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const Fastify = require('fastify');
const peerStatic = require('@fastify/static');
const { fastifyStatic } = require('../../../lib/fastify');

const IMPLS = { '@fastify/static': peerStatic, 'ssr-native': fastifyStatic };

test('an invalid onFile is hidden by early denials (404), as @fastify/static hides it', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-onfile-'));
  fs.writeFileSync(path.join(root, 'file.html'), 'file');
  try {
    for (const [name, plugin] of Object.entries(IMPLS)) {
      const denied = Fastify();
      denied.register(plugin, { serve: false, root, allowedPath: () => false, onFile: 'invalid' });
      denied.get('/', (_request, reply) => reply.sendFile('file.html'));
      assert.equal((await denied.inject('/')).statusCode, 404, `${name}: allowedPath denial`);
      await denied.close();

      const rootless = Fastify();
      rootless.register(plugin, { serve: false, onFile: 'invalid' });
      rootless.get('/', (_request, reply) => reply.sendFile('relative.html'));
      assert.equal((await rootless.inject('/')).statusCode, 404, `${name}: relative path without a root`);
      await rootless.close();

      // not denied: the invalid option is reported (a 500), by both
      const reached = Fastify();
      reached.register(plugin, { serve: false, root, onFile: 'invalid' });
      reached.get('/', (_request, reply) => reply.sendFile('file.html'));
      assert.equal((await reached.inject('/')).statusCode, 500, `${name}: invalid onFile reached`);
      await reached.close();
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

// Registers both plugins with wildcard: false over a root with an unreadable subdirectory, as a
// user without root's bypass of permissions (the child drops to nobody when this runs as root).
// Run as root, the child gets a copy of every file it loads (listed by a first run as root), in a
// folder nobody can read: the checkout may sit in a directory only root can enter (a clone in
// root's home or in a mktemp -d folder), where nobody could not reach node_modules.
const CHILD = `
  if (process.env.SSR_NATIVE_LIST_LOADED) process.on('exit', () => process.stderr.write('\\nLOADED ' + JSON.stringify(Object.keys(require.cache))));
  const Fastify = require('fastify');
  const impls = { '@fastify/static': require('@fastify/static'), 'ssr-native': require(process.argv[2]).fastifyStatic };
  (async () => {
    const out = {};
    for (const [name, plugin] of Object.entries(impls)) {
      const app = Fastify();
      app.register(plugin, { root: process.argv[1], wildcard: false });
      try {
        await app.ready();
        const r = await app.inject('/open/a.txt');
        out[name] = { started: true, status: r.statusCode, body: r.body };
      } catch (err) {
        out[name] = { started: false, code: err.code };
      }
      await app.close();
    }
    process.stdout.write(JSON.stringify(out));
  })();
`;

// Runs the child once as root to list the modules it loads, then copies them (and the
// package.json files that resolution reads) into a folder every user can read, keeping the layout
// below the checkout and below node_modules (which may be a symlink out of the checkout).
function copyLoadedFiles(checkout, staticRoot) {
  const listed = spawnSync(process.execPath, ['-e', CHILD, staticRoot, path.join(checkout, 'lib/fastify')], {
    cwd: checkout,
    encoding: 'utf8',
    env: { ...process.env, SSR_NATIVE_LIST_LOADED: '1' },
  });
  assert.equal(listed.status, 0, listed.stderr);
  const loaded = JSON.parse(listed.stderr.slice(listed.stderr.lastIndexOf('\nLOADED ') + 8));
  const realCheckout = fs.realpathSync(checkout);
  const tree = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-readable-'));
  fs.chmodSync(tree, 0o755);
  const place = (file) => {
    const at = file.indexOf(`${path.sep}node_modules${path.sep}`);
    if (at !== -1) return path.join(tree, file.slice(at + 1));
    const relative = path.relative(realCheckout, file);
    assert.ok(!relative.startsWith('..'), `the child loaded ${file}, outside the checkout`);
    return path.join(tree, relative);
  };
  const copy = (file) => {
    const to = place(file);
    if (fs.existsSync(to)) return;
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(file, to);
    fs.chmodSync(to, 0o644);
  };
  for (const file of loaded) {
    copy(file);
    // the package.json files of every folder up to the package or the checkout (exports, main, type)
    for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) {
      if (fs.existsSync(path.join(dir, 'package.json'))) copy(path.join(dir, 'package.json'));
      if (dir === realCheckout || path.basename(path.dirname(dir)) === 'node_modules') break;
      if (
        path.basename(path.dirname(path.dirname(dir))) === 'node_modules' &&
        path.basename(path.dirname(dir)).startsWith('@')
      )
        break;
    }
  }
  // every folder of the copy enterable by nobody (mkdir's mode passes through the umask)
  const open = (dir) => {
    fs.chmodSync(dir, 0o755);
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) open(path.join(dir, e.name));
  };
  open(tree);
  return tree;
}

test('wildcard: false skips an unreadable subdirectory, as @fastify/static does', (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-unreadable-'));
  fs.mkdirSync(path.join(root, 'open'));
  fs.mkdirSync(path.join(root, 'closed'));
  fs.writeFileSync(path.join(root, 'open', 'a.txt'), 'readable');
  fs.writeFileSync(path.join(root, 'closed', 'b.txt'), 'hidden');
  fs.chmodSync(path.join(root, 'closed'), 0o000);
  fs.chmodSync(root, 0o755);
  try {
    const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
    if (!asRoot && typeof process.getuid !== 'function') return t.skip('needs POSIX permissions');
    if (asRoot) {
      // a runtime installed under root's home (scripts/runtimes.js) is not executable by nobody
      const probe = spawnSync(process.execPath, ['-e', '0'], { uid: 65534, gid: 65534 });
      if (probe.status !== 0) return t.skip('this runtime binary is not executable by the nobody user');
    }
    const checkout = path.join(__dirname, '../../..');
    const tree = asRoot ? copyLoadedFiles(checkout, root) : checkout;
    const r = spawnSync(process.execPath, ['-e', CHILD, root, path.join(tree, 'lib/fastify')], {
      cwd: tree,
      encoding: 'utf8',
      ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
    });
    if (tree !== checkout) fs.rmSync(tree, { recursive: true, force: true });
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(out['@fastify/static'], { started: true, status: 200, body: 'readable' });
    assert.deepEqual(out['ssr-native'], out['@fastify/static']);
  } finally {
    fs.chmodSync(path.join(root, 'closed'), 0o755);
    fs.rmSync(root, { recursive: true, force: true });
  }
});
