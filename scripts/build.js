'use strict';
// Builds the addon with node-gyp, offline when it can be.
//
// node-gyp downloads Node's headers unless told where they are. Node installs them beside its
// binary (<prefix>/include/node, as the official tarballs and Debian do), so we point --nodedir
// at that prefix when its node_version.h matches the running Node. The user's npm config is not
// consulted: node-gyp lets npm_config_* environment variables override its command line, so
// they are removed from the environment node-gyp sees.
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

function findNodeGyp() {
  const candidates = [];
  try {
    candidates.push(require.resolve('node-gyp/bin/node-gyp.js', { paths: [root] }));
  } catch {}
  if (process.env.npm_config_node_gyp) candidates.push(process.env.npm_config_node_gyp);
  // npm's own copy, wherever npm lives next to this node.
  const prefix = path.resolve(path.dirname(process.execPath), '..');
  candidates.push(path.join(prefix, 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  candidates.push(path.join(prefix, 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  return candidates.find((c) => c && fs.existsSync(c)) || null;
}

function cleanEnv() {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_config_/i.test(key) && !/^npm_package_config_node_gyp_/i.test(key)) env[key] = value;
  }
  return env;
}

function main() {
  const nodeGyp = findNodeGyp();
  if (!nodeGyp) {
    console.error('ssr-native: node-gyp not found (it ships with npm); install it with `npm i -g node-gyp`.');
    process.exit(1);
  }
  const args = [nodeGyp, 'rebuild', '--jobs=max'];
  const nodedir = headersPrefixBesideNode();
  if (nodedir) {
    args.push(`--nodedir=${nodedir}`);
  } else {
    console.warn(`ssr-native: no Node ${process.version} headers beside ${process.execPath}; node-gyp may download them.`);
  }
  if (process.argv.includes('--debug')) args.push('--debug');
  const result = spawnSync(process.execPath, args, { cwd: root, env: cleanEnv(), stdio: 'inherit' });
  process.exit(result.status === null ? 1 : result.status);
}

if (require.main === module) main();

module.exports = { findNodeGyp, cleanEnv, headersPrefixBesideNode };
