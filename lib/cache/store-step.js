'use strict';
// The response cache's store step, for every adapter (Express's cache stage of the held response,
// Koa's middleware after `await next()`): a whole body copied (the route may reuse its buffer),
// and stored once the head has gone out, on the decision taken again on that head (confirm:
// a session middleware or compression may still add Set-Cookie or Cache-Control until then).
//
// Both steps take one object, a fill's store:
//   engine, fill, policy  the engine, its fill, and the policy admit() gave the head
//   res                   the node response whose head is awaited (sent-head.js)
//   headMap               the headers as the cache admitted them
//   body | copy           storeWhole: the body (copied here); storeWhenSent: a copy no one writes into
//   tagValue              the route's tag header (engine.tagHeader) taken off the response
//   notModified           the response went out as the client's 304 (the stored status is the page's)
const { sentHead, whenHeadSent } = require('../http/sent-head');

/** Stores a copy of `body` once sent; returns the copy, or undefined when it is over maxEntrySize
 *  (counted, not stored). */
function storeWhole({ engine, fill, policy, res, headMap, body, tagValue, notModified = false }) {
  if (body.length > engine.maxEntrySize) {
    engine.tooLarge(fill, policy);
    return undefined;
  }
  const copy = Buffer.allocUnsafeSlow(body.length);
  body.copy(copy);
  storeWhenSent({ engine, fill, policy, res, headMap, copy, tagValue, notModified });
  return copy;
}

/** Stores `copy` once the head of `res` has gone out. */
function storeWhenSent({ engine, fill, policy, res, headMap, copy, tagValue, notModified = false }) {
  whenHeadSent(res, () => {
    try {
      const sent = sentHead(res);
      if (notModified && sent.status === 304) sent.status = policy.status; // the client's 304, not the page's
      const final = engine.confirm(fill, policy, headMap, sent);
      if (final !== undefined) engine.store(fill, final, headMap, copy, tagValue);
    } catch {
      engine.abandon(fill); // a cache that fails to store costs the next request a render, nothing more
    }
  });
}

module.exports = { storeWhole, storeWhenSent };
