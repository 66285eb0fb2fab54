'use strict';
// Adding own properties to a response whose prototype Express has replaced (app.response, set on
// every request) takes V8's slow path before V8 13 (Node 20 and 22): every property added makes a
// new hidden class and copies the descriptors of a ServerResponse, and the response's later
// property reads go megamorphic. A middleware that wraps res.end, res.write, res.writeHead, res.on
// and res.flush (compression's shape) then pays for that before it does anything (the cost, and
// what it did to a cached page, are in docs/compression.md). An object moved to
// dictionary properties first (one add and delete) takes each later add as a hash insert.
// V8 13 (Node 24+) caches those transitions, and there dictionary properties cost more, so the
// move is made only where it pays: V8 before 13, and a prototype other than ServerResponse's
// (a plain node:http response's transitions are cached on every version). Bun's JavaScriptCore
// reports a V8 version of 14.
const { ServerResponse } = require('http');

const V8_MAJOR = Number(String(process.versions.v8 || '').split('.')[0]) || 0;
const SLOW_TRANSITIONS = V8_MAJOR > 0 && V8_MAJOR < 13;
const PROBE = '__ssrNativeDictionary';

/** Call before adding several own properties (method wrappers) to `res`. */
function beforeOwnMethods(res) {
  if (!SLOW_TRANSITIONS || Object.getPrototypeOf(res) === ServerResponse.prototype) return;
  res[PROBE] = 0;
  delete res[PROBE];
}

module.exports = { beforeOwnMethods, SLOW_TRANSITIONS };
