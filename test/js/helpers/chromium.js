'use strict';
// Debian's chromium, headless, driven over the DevTools protocol (a WebSocket through the `ws`
// package: Node 20 has no global WebSocket). launch() resolves to a browser with one page
// session, or to { skip: reason } when chromium is not installed or cannot start here.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const WebSocket = require('ws');

const START_TIMEOUT_MS = 30000;

function findChromium() {
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    for (const dir of (process.env.PATH || '').split(path.delimiter)) {
      const file = path.join(dir, name);
      if (fs.existsSync(file)) return file;
    }
  }
  return null;
}

/** { browser } or { skip }: `args` are extra chromium flags. */
async function launch(args = []) {
  const binary = findChromium();
  if (binary === null) return { skip: 'chromium is not installed (Debian: apt-get install chromium)' };
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'chromium-'));
  const flags = [
    '--headless=new',
    '--disable-gpu',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-extensions',
    '--disable-background-networking',
    `--user-data-dir=${profile}`,
    '--remote-debugging-port=0',
    ...(typeof process.getuid === 'function' && process.getuid() === 0 ? ['--no-sandbox'] : []),
    ...args,
    'about:blank',
  ];
  const child = spawn(binary, flags, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const endpoint = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), START_TIMEOUT_MS);
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('error', () => resolve(null));
    child.once('exit', () => resolve(null));
  });
  const cleanup = () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    // chromium's helper processes may still be writing the profile as the browser exits
    try {
      fs.rmSync(profile, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
    } catch {}
  };
  if (endpoint === null) {
    cleanup();
    return { skip: `chromium did not start: ${stderr.trim().split('\n').slice(-3).join(' | ')}` };
  }
  const ws = new WebSocket(endpoint, { perMessageDeflate: false, maxPayload: 64 * 1024 * 1024 });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  let nextId = 0;
  const pending = new Map();
  const listeners = new Set();
  ws.on('message', (data) => {
    const message = JSON.parse(data);
    if (message.id !== undefined) {
      const call = pending.get(message.id);
      pending.delete(message.id);
      if (call === undefined) return;
      if (message.error) call.reject(new Error(`${call.method}: ${message.error.message}`));
      else call.resolve(message.result);
    } else {
      for (const listener of listeners) listener(message);
    }
  });
  const send = (method, params = {}, sessionId) =>
    new Promise((resolve, reject) => {
      const id = ++nextId;
      pending.set(id, { resolve, reject, method });
      ws.send(JSON.stringify({ id, method, params, sessionId }));
    });
  const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
  const page = {
    send: (method, params) => send(method, params, sessionId),
    /** Calls listener(params) for each event `method` of the page session. */
    on(method, listener) {
      const wrapped = (message) => {
        if (message.sessionId === sessionId && message.method === method) listener(message.params);
      };
      listeners.add(wrapped);
      return () => listeners.delete(wrapped);
    },
    /** Navigates and waits for the load event. */
    async navigate(url) {
      const loaded = new Promise((resolve) => {
        const off = page.on('Page.loadEventFired', () => {
          off();
          resolve();
        });
      });
      const result = await page.send('Page.navigate', { url });
      if (result.errorText) throw new Error(`navigation to ${url} failed: ${result.errorText}`);
      await loaded;
    },
    /** The value of a JavaScript expression in the page. */
    async evaluate(expression) {
      const { result, exceptionDetails } = await page.send('Runtime.evaluate', { expression, returnByValue: true });
      if (exceptionDetails) throw new Error(`${expression}: ${exceptionDetails.text}`);
      return result.value;
    },
  };
  await page.send('Page.enable');
  await page.send('Network.enable');
  return {
    browser: {
      page,
      async close() {
        ws.close();
        await new Promise((resolve) => {
          if (child.exitCode !== null) return resolve();
          child.once('exit', resolve);
          child.kill('SIGTERM');
          setTimeout(() => child.kill('SIGKILL'), 3000).unref();
        });
        cleanup();
      },
    },
  };
}

module.exports = { launch };
