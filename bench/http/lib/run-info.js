'use strict';
// Small facts about a run: the commit it measured, and how a scenario says "not here".
const { spawnSync } = require('child_process');

/** Thrown (via the scenario context's skip(reason)) when a peer or runtime is missing. */
class SkipScenario extends Error {}

/** The checked-out commit, with "+dirty" when the work tree has changes; 'unknown' outside git. */
function gitCommit(dir) {
  const head = spawnSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: dir, encoding: 'utf8' });
  if (head.status !== 0) return 'unknown';
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: dir, encoding: 'utf8' });
  return head.stdout.trim() + (dirty.stdout && dirty.stdout.trim() ? '+dirty' : '');
}

module.exports = { SkipScenario, gitCommit };
