'use strict';
// The benchmark runner's server handling: an interrupted `npm run bench` (SIGTERM to the runner
// alone, or Ctrl-C, which reaches the whole process group) leaves no server running and no
// temporary tree behind.
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const RUNNER = path.join(__dirname, '..', '..', 'fixtures', 'bench-harness', 'runner.js');

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid, ms = 5000) {
  for (const start = Date.now(); Date.now() - start < ms;) {
    if (!alive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

// Starts the runner in a process group of its own; resolves once its server is up.
function startRunner() {
  // stderr: the server's (inherited) TREE line
  const runner = spawn(process.execPath, [RUNNER], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const seen = {};
  return new Promise((resolve, reject) => {
    const look = (chunk) => {
      out += chunk;
      const server = out.match(/SERVER (\d+)/);
      const tree = out.match(/TREE (\S+)/);
      if (server && tree && !seen.done) {
        seen.done = true;
        resolve({ runner, serverPid: Number(server[1]), tree: tree[1] });
      }
    };
    runner.stdout.on('data', look);
    runner.stderr.on('data', look);
    runner.once('exit', (code) => reject(new Error(`runner exited (${code}) before its server was up: ${out}`)));
  });
}

for (const [how, signal] of [
  ['SIGTERM to the runner alone', (r) => r.runner.kill('SIGTERM')],
  ['Ctrl-C (SIGINT to the process group)', (r) => process.kill(-r.runner.pid, 'SIGINT')],
]) {
  test(`bench runner: ${how} leaves no server and no temporary tree`, async (t) => {
    const started = await startRunner();
    t.after(() => {
      for (const pid of [started.serverPid, started.runner.pid]) if (alive(pid)) process.kill(pid, 'SIGKILL');
      fs.rmSync(started.tree, { recursive: true, force: true });
    });
    assert.ok(fs.existsSync(started.tree));
    const exited = new Promise((resolve) => started.runner.once('exit', resolve));
    signal(started);
    await exited;
    assert.ok(await gone(started.serverPid), `server ${started.serverPid} still running after ${how}`);
    assert.ok(!fs.existsSync(started.tree), `${started.tree} left behind after ${how}`);
  });
}
