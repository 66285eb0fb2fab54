'use strict';
// The auth servers' user table in an embedded SQLite file (WAL, so cluster workers share it):
// better-sqlite3 under Node, bun:sqlite under Bun (Bun cannot load better-sqlite3's addon),
// with the same schema and statements, so both runtimes do the same work per request.
//   openUsers(file, depsDir) -> { insert(email, digest) -> id, byEmail(email), latest() }
// insert throws an error with code 'SQLITE_CONSTRAINT_UNIQUE' for an email already taken
// (both drivers name it so).
const path = require('path');

const SCHEMA = `CREATE TABLE IF NOT EXISTS users (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  email TEXT NOT NULL UNIQUE,
  password TEXT NOT NULL,
  created_at INTEGER NOT NULL)`;

function open(file, depsDir) {
  if (process.versions.bun) {
    const { Database } = require('bun:sqlite');
    const db = new Database(file, { create: true });
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA busy_timeout = 5000');
    return db;
  }
  const Database = require(path.join(depsDir, 'node_modules', 'better-sqlite3'));
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  return db;
}

function openUsers(file, depsDir) {
  const db = open(file || ':memory:', depsDir);
  db.exec(SCHEMA);
  const insertUser = db.prepare('INSERT INTO users (email, password, created_at) VALUES (?, ?, ?)');
  const userByEmail = db.prepare('SELECT id, email, password FROM users WHERE email = ?');
  const latestUsers = db.prepare('SELECT id, email, created_at FROM users ORDER BY id DESC LIMIT 20');
  return {
    insert: (email, digest) => Number(insertUser.run(email, digest, Date.now()).lastInsertRowid),
    // bun:sqlite answers null for no row, better-sqlite3 undefined
    byEmail: (email) => userByEmail.get(email) || undefined,
    latest: () => latestUsers.all(),
  };
}

module.exports = { openUsers };
