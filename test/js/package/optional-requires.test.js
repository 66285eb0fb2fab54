'use strict';
// ssr-native without its optional packages (redis, ioredis, prom-client, hono...: what only some
// apps install): every public entry loads without them, and lib/ requires a package that is not
// one of its dependencies only inside a function and a try block. A bundler (esbuild, which
// Angular's build runs) fails the whole build on an unresolvable require() outside a try block,
// even one that never runs; inside one it leaves the failure to run time.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { isBuiltin } = require('node:module');
const { spawnSync } = require('node:child_process');
// eslint's own parser (espree, installed with eslint): the same ESTree the lint rules read
const espree = require('espree');

const ROOT = path.join(__dirname, '../../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const DEPENDENCIES = new Set(Object.keys(pkg.dependencies || {}));

function jsFiles(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...jsFiles(full));
    else if (entry.name.endsWith('.js')) out.push(full);
  }
  return out;
}

const packageOf = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

// Every require('<package>') of `source` naming a package outside `DEPENDENCIES`, with whether
// it sits inside a function and a try block ({ specifier, line, guarded }).
function optionalRequires(source) {
  const ast = espree.parse(source, { ecmaVersion: 'latest', sourceType: 'script', loc: true });
  const found = [];
  const visit = (node, inFunction, inTry) => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const child of node) visit(child, inFunction, inTry);
      return;
    }
    if (typeof node.type !== 'string') return;
    if (
      node.type === 'CallExpression' &&
      node.callee.type === 'Identifier' &&
      node.callee.name === 'require' &&
      node.arguments.length === 1 &&
      node.arguments[0].type === 'Literal' &&
      typeof node.arguments[0].value === 'string'
    ) {
      const specifier = node.arguments[0].value;
      if (!specifier.startsWith('.') && !isBuiltin(specifier) && !DEPENDENCIES.has(packageOf(specifier)))
        found.push({ specifier, line: node.loc.start.line, guarded: inFunction && inTry });
    }
    const fn = /Function/.test(node.type);
    for (const [key, child] of Object.entries(node)) {
      if (key === 'loc' || key === 'type') continue;
      // a new function is not inside its parent's try block
      const tryHere = node.type === 'TryStatement' && key === 'block';
      visit(child, inFunction || fn, fn ? tryHere : inTry || tryHere);
    }
  };
  visit(ast, false, false);
  return found;
}

test('optional packages are required only inside a function and a try block', () => {
  const unguarded = [];
  let seen = 0;
  for (const file of jsFiles(path.join(ROOT, 'lib'))) {
    for (const r of optionalRequires(fs.readFileSync(file, 'utf8'))) {
      seen++;
      if (!r.guarded) unguarded.push(`${path.relative(ROOT, file)}:${r.line} require('${r.specifier}')`);
    }
  }
  assert.ok(seen > 0, 'lib/ requires some optional package (hono, redis)');
  assert.deepEqual(unguarded, [], 'a bundler would fail on these');
});

test('the reader sees a require outside a try block, and one in a nested function as outside it', () => {
  const source =
    "function a() { try { require('x'); } catch {} }\n" +
    "function b() { try { return () => require('y'); } catch {} }\n" +
    "require('z');\nfunction c() { require('w'); }\n" +
    "function d() { try { require('./own'); require('fs'); } catch {} }";
  assert.deepEqual(
    optionalRequires(source).map((r) => [r.specifier, r.guarded]),
    [
      ['x', true],
      ['y', false],
      ['z', false],
      ['w', false],
    ],
  );
});

test('every public entry loads with no optional package installed', () => {
  // a child whose resolver finds none of the packages the entries must not need
  const absent = ['redis', 'ioredis', 'iovalkey', 'prom-client', 'hono', '@hono/node-server', 'fastify', 'koa'];
  const entries = Object.entries(pkg.exports)
    .filter(([key, value]) => !key.endsWith('.json') && typeof value === 'object' && value.require)
    .map(([, value]) => path.join(ROOT, value.require));
  assert.ok(entries.length >= 8, `${entries.length} entries`);
  const script = `
    const Module = require('module');
    const absent = new Set(${JSON.stringify(absent)});
    const resolve = Module._resolveFilename;
    Module._resolveFilename = function (request, ...rest) {
      const name = request.split('/').slice(0, request.startsWith('@') ? 2 : 1).join('/');
      if (absent.has(name)) throw Object.assign(new Error('Cannot find module ' + request), { code: 'MODULE_NOT_FOUND' });
      return resolve.call(this, request, ...rest);
    };
    for (const entry of ${JSON.stringify(entries)}) require(entry);
    const { responseCache } = require(${JSON.stringify(path.join(ROOT, 'lib/express/cache.js'))});
    responseCache({}).close();
    process.stdout.write('loaded ' + ${entries.length});
  `;
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', cwd: ROOT });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, `loaded ${entries.length}`);
});
