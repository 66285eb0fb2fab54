'use strict';
// fastifyCriticalCss: a Fastify 4/5 plugin (not encapsulated, as fastify-plugin would make it)
// whose onSend hook inlines critical CSS into string and Buffer text/html payloads, with a new
// ETag when the reply had one. Register it before fastifyCompress and fastifyEtag: onSend hooks
// run in registration order, so they see the inlined page. Stream payloads pass as they are.
const { CriticalCss } = require('../critical-css/critical-css');
const { headFrom, wantsInlining, inlineWhole } = require('../critical-css/whole-body');
const { invalidType } = require('../validate');
const { asPlugin } = require('./plugin-meta');

async function fastifyCriticalCss(app, options) {
  if (options === null || typeof options !== 'object') throw invalidType('options', 'an object', options);
  const engine = options.criticalCss instanceof CriticalCss ? options.criticalCss : new CriticalCss(options);
  app.decorate('criticalCss', engine);
  if (!(options.criticalCss instanceof CriticalCss)) app.addHook('onClose', async () => engine.close());
  app.addHook('onSend', async function criticalCssOnSend(request, reply, payload) {
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    const head = headFrom(request.method, reply.statusCode, (name) => reply.getHeader(name));
    if (!wantsInlining(head)) return payload;
    const done = await inlineWhole(engine, payload, head);
    if (done === null) return payload;
    if (reply.getHeader('content-length') !== undefined) reply.header('content-length', done.body.length);
    if (done.tag !== undefined) reply.header('etag', done.tag);
    return done.body;
  });
}

module.exports = asPlugin(fastifyCriticalCss, 'ssr-native-critical-css', 'fastifyCriticalCss');
