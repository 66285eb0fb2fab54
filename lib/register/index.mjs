// `node --import ssr-native/register server.mjs`: installs the CommonJS resolve hook (index.js),
// which covers everything Express, body-parser, type-is, negotiator and Koa require (they are
// CommonJS), and on Node >= 20.6 module.register hooks for the app's own ESM imports of
// 'content-type' and 'serve-static'.
import module from 'node:module';
import { MessageChannel } from 'node:worker_threads';
import register from './index.js';

const parts = Object.keys(register.active);
if (parts.length > 0 && !register.esmHooks && typeof module.register === 'function') {
  const { port1, port2 } = new MessageChannel();
  port1.on('message', ({ part, resolved }) => register.active[part]?.add(resolved));
  port1.unref();
  module.register('./esm-hooks.mjs', import.meta.url, { data: { parts, port: port2 }, transferList: [port2] });
  register.esmHooks = true;
}

export default register;
export const { active, replacements, redirected, replacement } = register;
