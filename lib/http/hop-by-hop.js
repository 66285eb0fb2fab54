'use strict';
// RFC 9110 7.6.1: the fields that describe one connection, not the message. A proxy or cache
// drops them before forwarding or storing (RFC 9111 3.1), and a request this process sends
// on a client's behalf does not copy them. Proxy-Connection is the pre-standard spelling some
// clients still send; Trailer announces fields of a chunked body this side re-frames.
const HOP_BY_HOP = Object.freeze([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
]);

module.exports = { HOP_BY_HOP };
