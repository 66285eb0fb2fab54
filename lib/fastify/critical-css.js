'use strict';
// fastifyCriticalCss: a Fastify 4/5 plugin (not encapsulated, as fastify-plugin would make it)
// whose onSend hook runs string and Buffer text/html payloads through the critical-CSS stage (the
// same as Express's, lib/critical-css/stage.js): critical CSS inlined, Content-Length and ETag
// (when the reply had one) made right. It runs as the pipeline's first stage (pipeline.js), so
// fastifyEtag tags the inlined page and fastifyCompress compresses it whatever the registration
// order. Stream payloads pass as they are.
const { CriticalCss } = require('../critical-css/critical-css');
const { wantsInlining, inlineWhole, passedThrough } = require('../critical-css/stage');
const { invalidType } = require('../validate');
const { asPlugin } = require('./plugin-meta');
const { joinPipeline } = require('./pipeline');

/** The reply as the stage reads and sets its head (held-value.js). */
class ReplyHead {
  constructor(reply) {
    this.reply = reply;
  }

  get statusCode() {
    return this.reply.statusCode;
  }

  getHeader(name) {
    return this.reply.getHeader(name);
  }

  setHeader(name, value) {
    this.reply.header(name, value);
  }
}

async function fastifyCriticalCss(app, options) {
  if (options === null || typeof options !== 'object') throw invalidType('options', 'an object', options);
  const engine = options.criticalCss instanceof CriticalCss ? options.criticalCss : new CriticalCss(options);
  app.decorate('criticalCss', engine);
  if (!(options.criticalCss instanceof CriticalCss)) app.addHook('onClose', async () => engine.close());
  joinPipeline(app, { place: 'critical-css', run: criticalCssStage });

  async function criticalCssStage(sending) {
    const { request, reply, payload } = sending;
    if (
      (typeof payload !== 'string' && !Buffer.isBuffer(payload)) ||
      !wantsInlining(
        request.method,
        reply.statusCode,
        reply.getHeader('content-type'),
        reply.getHeader('content-encoding'),
      )
    ) {
      passedThrough(engine);
      return;
    }
    const inlined = await inlineWhole(engine, new ReplyHead(reply), request.method, payload);
    if (inlined !== null) sending.payload = inlined;
  }
}

module.exports = asPlugin(fastifyCriticalCss, 'ssr-native-critical-css', 'fastifyCriticalCss');
