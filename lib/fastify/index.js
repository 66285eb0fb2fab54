'use strict';
// ssr-native/fastify: Fastify 4/5 plugins with the names, options and decorators of the packages
// they replace: fastifyStatic (@fastify/static 10.1), fastifyEtag (@fastify/etag 6.2) and
// fastifyCompress (@fastify/compress 9.2).
const fastifyStatic = require('./static');
const fastifyEtag = require('./etag');
const fastifyCompress = require('./compress');
const fastifyCriticalCss = require('./critical-css');

module.exports = { fastifyStatic, fastifyEtag, fastifyCompress, fastifyCriticalCss, criticalCss: fastifyCriticalCss };
