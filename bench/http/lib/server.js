'use strict';
// Starts a benchmark server script and waits for its "READY <port>" line.
const { spawn } = require('child_process');
const { SERVER_CPU, pinProcess } = require('./cpu');

function startServer(script, env = {}, { cpu = SERVER_CPU, timeoutMs = 20000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], {
      env: { ...process.env, PORT: '0', NODE_ENV: 'production', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
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
  process.on('SIGTERM', () => process.exit(0));
  return server;
}

module.exports = { startServer, listen };
