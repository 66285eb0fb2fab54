'use strict';
// fastify-plugin's marks, written directly (no run-time dependency on fastify-plugin): a plugin
// marked so is not encapsulated (its hooks and decorators reach the parent, as fp() does), and
// Fastify checks `fastify` against its own version and names it in errors and the plugin tree.
const SKIP_OVERRIDE = Symbol.for('skip-override');
const DISPLAY_NAME = Symbol.for('fastify.display-name');
const PLUGIN_META = Symbol.for('plugin-meta');

/** Marks `fn` as fp(fn, { fastify: '4.x || 5.x', name }) marks it, and exports it three ways. */
function asPlugin(fn, name, exportName) {
  fn[SKIP_OVERRIDE] = true;
  fn[DISPLAY_NAME] = name;
  fn[PLUGIN_META] = { fastify: '4.x || 5.x', name };
  fn.default = fn;
  fn[exportName] = fn;
  return fn;
}

module.exports = { asPlugin };
