'use strict';
// The one error for a `store` option that is no store, naming every store there is: a newcomer
// who writes `store: 'shared'` or passes the wrong object learns what to write instead.
const { describe } = require('../validate');

const STORE_CHOICES =
  "sharedMemoryStore({ name }) from 'ssr-native/cache' (the workers of one machine), a connected Redis or Valkey client (ioredis, iovalkey or node-redis: several machines), or nothing (this process's own memory store)";

function storeChoiceError(value) {
  return new TypeError(`options.store must be ${STORE_CHOICES} (received ${describe(value)})`);
}

module.exports = { storeChoiceError };
