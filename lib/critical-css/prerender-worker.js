'use strict';
// One worker thread of inlinePrerendered (prerender.js): inlines its slice of the pages.
const { parentPort, workerData } = require('worker_threads');
const { inlineFiles } = require('./prerender');

parentPort.postMessage(inlineFiles(workerData.files, workerData.options));
