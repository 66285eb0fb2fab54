'use strict';
// Runs one load test in a separate process pinned to the load generator's CPU.
const { spawn } = require('child_process');
const path = require('path');
const { LOAD_CPU, pinnedCommand } = require('./cpu');

function runLoad(options) {
  const [command, args] = pinnedCommand(LOAD_CPU, process.execPath, [
    path.join(__dirname, 'load.js'),
    JSON.stringify(options),
  ]);
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      try {
        const result = JSON.parse(out.trim().split('\n').pop());
        if (result.error) reject(new Error(result.error));
        else resolve(result);
      } catch (err) {
        reject(new Error(`load generator exited with ${code}: ${out}`));
      }
    });
  });
}

module.exports = { runLoad };
