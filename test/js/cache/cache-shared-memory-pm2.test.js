'use strict';
// sharedMemoryStore under PM2's cluster mode (pm2 6 from npm, its daemon in a temporary
// PM2_HOME): 4 instances of one Express app (test/js/helpers/shm-cluster-app.js) behind PM2's
// port, as `pm2 start app.js -i 4` runs a user's server. Every page renders once per machine, a
// burst for a new page renders once, a purge through whichever instance answers reaches all, a
// stale page is refreshed by one instance, a hit-for-pass decision is seen by all, and
// instances SIGKILLed at random under load (seeded; PM2 restarts them) never make anyone get a
// torn or foreign body. Renders are counted from a log every render appends to.
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { mulberry32 } = require('../helpers/seeded-random');
const { segmentDir, leftovers } = require('../helpers/shm-segments');
const {
  freePort,
  get,
  renderCounter,
  eachPageOnce,
  burstOnce,
  purgeReachesAll,
  underKills,
  staleRefreshedOnce,
  hitForPassSeenByAll,
} = require('../helpers/cluster-client');

const APP = path.join(__dirname, '..', 'helpers', 'shm-cluster-app.js');
let PM2;
try {
  PM2 = path.join(path.dirname(require.resolve('pm2/package.json')), 'bin', 'pm2');
} catch {
  PM2 = null;
}
const skip = PM2 === null ? 'pm2 is not installed (a devDependency: npm install)' : false;

// PM2's daemon is detached by design: if this process is killed (a runner's timeout) before
// t.after runs, the daemon and its 4 instances would live on. A detached watchdog polls this
// process and, once it is gone, does what t.after does.
const WATCHDOG = `
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const [pm2, parent, shm, dir] = process.argv.slice(1);
const alive = () => { try { process.kill(Number(parent), 0); return true; } catch { return false; } };
const timer = setInterval(() => {
  if (alive()) return;
  clearInterval(timer);
  spawnSync(process.execPath, [pm2, 'kill'], { timeout: 60000, stdio: 'ignore' });
  fs.rmSync(shm, { recursive: true, force: true });
  fs.rmSync(dir, { recursive: true, force: true });
}, 500);
`;

// Starts the app under a PM2 daemon of its own; stops the daemon and removes everything after.
async function startPm2(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shm-pm2-'));
  const name = `pm2-${process.pid}-${Date.now()}`;
  const shm = segmentDir(`pm2-${process.pid}`); // the segment's folder, removed whole
  const port = await freePort();
  const log = path.join(dir, 'renders.log');
  const env = {
    ...process.env,
    PM2_HOME: path.join(dir, 'pm2'),
    PORT: String(port),
    SHM_NAME: name,
    SHM_DIR: shm,
    RENDER_LOG: log,
  };
  const pm2 = (...args) => spawnSync(process.execPath, [PM2, ...args], { env, encoding: 'utf8', timeout: 60000 });
  const watchdog = spawn(process.execPath, ['-e', WATCHDOG, PM2, String(process.pid), shm, dir], {
    env,
    detached: true,
    stdio: 'ignore',
  });
  watchdog.unref();
  t.after(() => {
    pm2('kill');
    fs.rmSync(shm, { recursive: true, force: true });
    fs.rmSync(dir, { recursive: true, force: true });
    watchdog.kill(); // last: this process may be killed while the lines above run
  });
  const started = pm2('start', APP, '-i', '4', '--name', 'shop', '--no-color');
  assert.equal(started.status, 0, `pm2 start: ${started.stdout}\n${started.stderr}`);
  const pids = () => {
    const listed = pm2('jlist');
    return JSON.parse(listed.stdout.slice(listed.stdout.indexOf('[')))
      .filter((p) => p.name === 'shop' && p.pid > 0)
      .map((p) => p.pid);
  };
  // ready when all four instances are up and a request is answered
  const until = Date.now() + 30000;
  while (pids().length < 4 || (await get(port, '/purge?prefix=/nothing')).status !== 200) {
    assert.ok(Date.now() < until, 'PM2 did not start 4 instances');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const renders = renderCounter(log);
  return { port, renders, pids };
}

test.after(() =>
  assert.deepEqual(leftovers(`pm2-${process.pid}`), [], 'every segment and folder made here is removed'),
);

test('pm2 -i 4: each page once, a burst once, a purge reaches every instance', { skip, timeout: 180000 }, async (t) => {
  const { port, renders, pids } = await startPm2(t);
  assert.equal(new Set(pids()).size, 4);
  await eachPageOnce(port, renders);
  await burstOnce(port, renders);
  await purgeReachesAll(port, renders);
});

test(
  'pm2 -i 4: a stale page is refreshed once for the machine, a hit-for-pass is seen by every instance',
  { skip, timeout: 180000 },
  async (t) => {
    const { port, renders } = await startPm2(t);
    await staleRefreshedOnce(port, renders);
    await hitForPassSeenByAll(port, renders);
  },
);

test(
  'pm2 -i 4: instances SIGKILLed at random under load, no torn or foreign body',
  { skip, timeout: 180000 },
  async (t) => {
    const seed = Number(process.env.SEED || Date.now() % 1e9);
    const random = mulberry32(seed);
    t.diagnostic(`seed ${seed}`);
    const { port, pids } = await startPm2(t);
    let killed = 0;
    const { ok, failed, bad } = await underKills({
      port,
      random,
      until: Date.now() + 6000,
      every: () => 500 + random() * 1000,
      kill: () => {
        const list = pids();
        if (list.length === 0) return;
        try {
          process.kill(list[Math.floor(random() * list.length)], 'SIGKILL');
          killed++;
        } catch {
          // gone already
        }
      },
    });
    t.diagnostic(`${ok} served whole, ${failed} failed or cut, ${killed} instances killed`);
    assert.deepEqual(bad, [], `seed ${seed}`);
    assert.ok(killed >= 2, `seed ${seed}: only ${killed} instances killed`);
    assert.ok(ok > 100, `seed ${seed}: only ${ok} requests served`);
    // PM2 restarted them; the store still serves
    const again = Date.now() + 20000;
    let after;
    while ((after = await get(port, '/p/after')).status !== 200) {
      assert.ok(Date.now() < again, 'nothing answers after the storm');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.match(after.body, /^page \/p\/after by \d+ /);
  },
);
