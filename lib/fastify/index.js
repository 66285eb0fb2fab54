'use strict';
// ssr-native/fastify: Fastify 4/5 plugins with the names, options and decorators of the packages
// they replace: fastifyStatic (@fastify/static 10.1) and fastifyEtag (@fastify/etag 6.2).
const fastifyStatic = require('./static');
const fastifyEtag = require('./etag');

module.exports = { fastifyStatic, fastifyEtag };
