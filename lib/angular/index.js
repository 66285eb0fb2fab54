'use strict';
// ssr-native/angular: the two places an Angular SSR server can use the native pieces.
// - cacheCommonEngine(engine): prerendered pages of a CommonEngine server from memory.
// - writeResponse(response, req, res): AngularNodeAppEngine responses with an ETag and 304s.
// - criticalCss(options): Express middleware inlining critical CSS as Angular's build option
//   inlineCritical would (ssr-native/critical-css), with that option turned off.
// Static files: serveStatic from 'ssr-native' in place of express.static (same options).
const { cacheCommonEngine, ssgCacheOf } = require('./common-engine');
const { writeResponse } = require('./write-response');
const { criticalCss } = require('../express/critical-css'); // an Angular server is an Express app

module.exports = { cacheCommonEngine, ssgCacheOf, writeResponse, criticalCss };
