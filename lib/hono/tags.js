'use strict';
// Responses serveStatic answered from memory -> the CRC-32 tag the cache already holds for
// those bytes, so etag() tags them without reading the body back.
const tagOf = new WeakMap();

module.exports = { tagOf };
