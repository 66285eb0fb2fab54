'use strict';
// Worker side of test/runtimes/smoke.test.js. mode 'answer': compute and post known answers;
// mode 'busy': start long hashes and a loop of etags, say so, and wait to be terminated.
const { parentPort, workerData } = require('node:worker_threads');
const { name } = require('ssr-native/package.json');

const { etag } = require(name);
const contentType = require(`${name}/content-type`);
const argon2 = require(`${name}/argon2`);

if (workerData.mode === 'answer') {
  (async () => {
    const digest = await argon2.hash(`pw${workerData.i}`, { memoryCost: 1024, timeCost: 1 });
    parentPort.postMessage({
      etag: etag(Buffer.from('123456789')),
      type: contentType.parse('text/html; charset=utf-8').type,
      verified: await argon2.verify(digest, `pw${workerData.i}`),
    });
  })();
} else {
  for (let i = 0; i < 4; i++) argon2.hash(`busy${i}`, { memoryCost: 32768, timeCost: 4 }).catch(() => {});
  parentPort.postMessage('started');
  const big = Buffer.alloc(1 << 20, 7);
  const spin = () => {
    for (let i = 0; i < 50; i++) etag(big);
    setImmediate(spin);
  };
  spin();
}
