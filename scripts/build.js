'use strict';
// Builds the addon with node-gyp, offline when it can be.
//
// node-gyp downloads Node's headers unless told where they are. Node installs them beside its
// binary (<prefix>/include/node, as the official tarballs and Debian do), so we point --nodedir
// at that prefix when its node_version.h matches the running Node. The user's npm config is not
// consulted: node-gyp lets npm_config_* environment variables override its command line, so
// they are removed from the environment node-gyp sees. Which node-gyp: see chooseNodeGyp (npm's
// own first, then the project's, then npm's bundled copy; never one too old for this Node).
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const root = path.join(__dirname, '..');

function headersPrefixBesideNode() {
  const prefix = path.resolve(path.dirname(process.execPath), '..');
  const versionHeader = path.join(prefix, 'include', 'node', 'node_version.h');
  const commonGypi = path.join(prefix, 'include', 'node', 'common.gypi');
  if (!fs.existsSync(versionHeader) || !fs.existsSync(commonGypi)) return null;
  const text = fs.readFileSync(versionHeader, 'utf8');
  const part = (name) => (text.match(new RegExp(`#define NODE_${name}_VERSION (\\d+)`)) || [])[1];
  const version = `v${part('MAJOR')}.${part('MINOR')}.${part('PATCH')}`;
  return version === process.version ? prefix : null;
}

// The oldest node-gyp that builds Node 20-26 with today's Python: 8.2.0 stopped writing to
// process.config (read-only since Node 19: "Cannot assign to read only property 'cflags'"), and
// 10.0.0 stopped importing distutils, which Python 3.12 removed.
const MIN_NODE_GYP = [10, 0, 0];

function parseVersion(text) {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(String(text));
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

function atLeast(version, min) {
  for (let i = 0; i < 3; i++) if (version[i] !== min[i]) return version[i] > min[i];
  return true;
}

// The version of the node-gyp whose bin/node-gyp.js is `bin` (its package.json), or null.
function versionOf(bin) {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(path.dirname(bin), '..', 'package.json'), 'utf8'));
    return pkg.name === 'node-gyp' && typeof pkg.version === 'string' ? pkg.version : null;
  } catch {
    return null;
  }
}

/**
 * Picks the node-gyp to run: { chosen: { bin, version, source } or null, skipped: [...] }.
 * In order: the one npm runs scripts with (npm_config_node_gyp), the project's own
 * (node_modules/node-gyp right here, not one up the tree), npm's bundled copy beside this node,
 * and only then whatever require.resolve finds up the tree or on NODE_PATH (a hoisting monorepo
 * can put an old one there). The first of at least MIN_NODE_GYP wins; one whose version cannot
 * be read is used only when no checked one is found.
 */
function chooseNodeGyp({ env = process.env, nodePrefix = path.resolve(path.dirname(process.execPath), '..') } = {}) {
  const candidates = [];
  if (env.npm_config_node_gyp) candidates.push({ bin: env.npm_config_node_gyp, source: "npm's (npm_config_node_gyp)" });
  candidates.push({
    bin: path.join(root, 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
    source: "the project's own",
  });
  for (const dir of [path.join(nodePrefix, 'lib', 'node_modules'), path.join(nodePrefix, 'node_modules')]) {
    candidates.push({
      bin: path.join(dir, 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
      source: "npm's bundled copy",
    });
  }
  try {
    candidates.push({
      bin: require.resolve('node-gyp/bin/node-gyp.js', { paths: [root] }),
      source: 'require.resolve (up the tree or NODE_PATH)',
    });
  } catch {}
  const skipped = [];
  let unversioned = null;
  const seen = new Set();
  for (const candidate of candidates) {
    if (seen.has(candidate.bin) || !fs.existsSync(candidate.bin)) continue;
    seen.add(candidate.bin);
    const version = versionOf(candidate.bin);
    const parsed = parseVersion(version);
    if (parsed === null) {
      if (unversioned === null) unversioned = { ...candidate, version: 'of unknown version' };
    } else if (atLeast(parsed, MIN_NODE_GYP)) {
      return { chosen: { ...candidate, version }, skipped };
    } else {
      skipped.push({ ...candidate, version });
    }
  }
  return { chosen: unversioned, skipped };
}

function describeNodeGyp({ bin, version, source }) {
  return `node-gyp ${version} at ${bin} (${source})`;
}

/** The node-gyp script to run, or null (scripts/arm64.js uses this too). */
function findNodeGyp() {
  const { chosen } = chooseNodeGyp();
  return chosen && chosen.bin;
}

function cleanEnv() {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_config_/i.test(key) && !/^npm_package_config_node_gyp_/i.test(key)) env[key] = value;
  }
  return env;
}

function main() {
  const { chosen, skipped } = chooseNodeGyp();
  const min = MIN_NODE_GYP.join('.');
  for (const old of skipped) {
    console.warn(
      `ssr-native: skipped ${describeNodeGyp(old)}: too old to build Node ${process.version} (needs >= ${min})`,
    );
  }
  if (!chosen) {
    console.error(
      `ssr-native: no node-gyp >= ${min} found (npm ships one; or \`npm i -g node-gyp\` and set npm_config_node_gyp to its bin/node-gyp.js).`,
    );
    process.exit(1);
  }
  const args = [chosen.bin, 'rebuild', '--jobs=max'];
  const nodedir = headersPrefixBesideNode();
  if (nodedir) {
    args.push(`--nodedir=${nodedir}`);
  } else {
    console.warn(
      `ssr-native: no Node ${process.version} headers beside ${process.execPath}; node-gyp may download them.`,
    );
  }
  if (process.argv.includes('--debug')) args.push('--debug');
  // --in <dir>: build there (a folder holding binding.gyp and links to the sources, made by
  // scripts/prebuild.js) instead of the checkout, whose build/ stays as it is.
  const at = process.argv.indexOf('--in');
  const cwd = at > 0 && process.argv[at + 1] ? path.resolve(process.argv[at + 1]) : root;
  const result = spawnSync(process.execPath, args, { cwd, env: cleanEnv(), stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`ssr-native: the build failed with ${describeNodeGyp(chosen)}.`);
  }
  process.exit(result.status === null ? 1 : result.status);
}

if (require.main === module) main();

module.exports = { findNodeGyp, chooseNodeGyp, cleanEnv, MIN_NODE_GYP, headersPrefixBesideNode };
