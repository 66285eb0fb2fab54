'use strict';
// Single GET requests a scenario makes besides the load generator's: reading a server's /stats,
// counting statuses in a burst, polling for a change.
const http = require('http');

/** { status, headers } of a GET (body read and dropped); status 0 when the request failed. */
function getResponse(url, { agent = false, headers } = {}) {
  return new Promise((resolve) => {
    http
      .get(url, { agent, headers }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers }));
        res.on('error', () => resolve({ status: 0, headers: {} }));
      })
      .on('error', () => resolve({ status: 0, headers: {} }));
  });
}

const getStatus = async (url) => (await getResponse(url)).status;

function getJson(url) {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          try {
            resolve(JSON.parse(text));
          } catch (err) {
            reject(new Error(`${url}: ${res.statusCode}, not JSON: ${text.slice(0, 200)}`));
          }
        });
      })
      .on('error', reject);
  });
}

module.exports = { getResponse, getStatus, getJson };
