'use strict';
// Starts a benchmark server script and waits for its "READY <port>" line.
const { spawn } = require('child_process');
const { SERVER_CPU, pinProcess } = require('./cpu');
const { serverRuntime } = require('./runtime');

// Every server started (a few hundred in a run at most). An interrupted run (Ctrl-C, or a kill
// of the runner alone) must not leave them behind, nor the temporary trees that scenarios and
// servers remove on 'exit': so the runner turns SIGINT/SIGTERM into a normal exit, and its
// 'exit' stops what is left.
const running = new Set();
let exitHooked = false;
function stopAllOnExit() {
  if (exitHooked) return;
  exitHooked = true;
  process.on('exit', () => {
    for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  });
  process.once('SIGINT', () => process.exit(130));
  process.once('SIGTERM', () => process.exit(143));
}

// `bin`: the executable to run it with (default: the measured runtime, --runtime).
function startServer(script, env = {}, { cpu = SERVER_CPU, timeoutMs = 20000, bin } = {}) {
  stopAllOnExit();
  return new Promise((resolve, reject) => {
    // Under the measured runtime (--runtime), not necessarily the runner's.
    const child = spawn(bin || serverRuntime().bin, [script], {
      env: { ...process.env, PORT: '0', NODE_ENV: 'production', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    running.add(child);
    let buffered = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} did not print READY within ${timeoutMs} ms`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with code ${code} before it was ready`));
    });
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      const match = buffered.match(/READY (\d+)/);
      if (!match) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      child.stdout.removeAllListeners('data');
      child.stdout.resume();
      pinProcess(child.pid, cpu);
      const port = Number(match[1]);
      resolve({
        port,
        url: `http://127.0.0.1:${port}`,
        pid: child.pid,
        child,
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
            setTimeout(() => child.kill('SIGKILL'), 3000).unref();
          }),
      });
    });
  });
}

/** For server scripts: listen on $PORT (0 = any) on loopback and announce the port. */
function listen(server, port = Number(process.env.PORT || 0)) {
  server.listen(port, '127.0.0.1', () => {
    process.stdout.write(`READY ${server.address().port}\n`);
  });
  // exit, not die, so the script's 'exit' handlers (temporary trees) run; SIGINT: a Ctrl-C
  // reaches the whole process group
  process.on('SIGTERM', () => process.exit(0));
  process.on('SIGINT', () => process.exit(0));
  return server;
}

module.exports = { startServer, listen };
