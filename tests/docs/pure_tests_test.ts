/**
 * The pure tests' list (tests/pure_tests.txt; tests/README.md "Running part of the suite"):
 * `deno task test:pure` runs every file it names with the network, subprocesses, FFI and system
 * information denied, so a listed test that starts a process, opens a socket or reaches a database
 * fails there, loudly, rather than quietly slowing the task. This file keeps the list and the task
 * true: every line names a test file that exists, once, in path order; no listed file imports the
 * fixtures that start a gateway, a database or a stand-in server; and the task reads the list
 * with those denials.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { ROOT } from '../../scripts/host_process.ts';

const LIST = 'tests/pure_tests.txt';
const DENIALS = ['--deny-net', '--deny-run', '--deny-ffi', '--deny-sys'];
/** Imports of the fixtures that start a gateway, a database or a stand-in server. */
const STARTERS = [
  /helpers\/(gateway|setup)\.ts'/,
  /fixtures\/(db|pg_cron|storage)\//,
  /fixtures\/(gotrue_|prom)/,
];

const listed = readFileSync(`${ROOT}${LIST}`, 'utf8').split('\n').filter((line) => line !== '');

Deno.test('every listed pure test exists, once, in path order', () => {
  assert.ok(listed.length > 0);
  for (const path of listed) {
    assert.match(path, /^tests\/.+_test\.ts$/, path);
    assert.ok(existsSync(`${ROOT}${path}`), `${LIST} names ${path}, which does not exist`);
  }
  assert.deepEqual(listed, [...new Set(listed)].sort());
});

Deno.test('no listed pure test imports a fixture that starts a gateway, database or server', () => {
  const starting = listed.flatMap((path) => {
    const text = readFileSync(`${ROOT}${path}`, 'utf8');
    return STARTERS.filter((re) => re.test(text)).map((re) => `${path}: ${re.source}`);
  });
  assert.deepEqual(starting, []);
});

Deno.test('deno task test:pure runs the list with the network and processes denied', () => {
  const config = JSON.parse(readFileSync(`${ROOT}deno.json`, 'utf8'));
  const task: string = config.tasks['test:pure'];
  assert.ok(task.includes(`$(cat ${LIST})`), task);
  for (const flag of DENIALS) assert.ok(task.split(' ').includes(flag), `${flag} in ${task}`);
  assert.ok(!/--allow-(all|net|run|ffi|sys)\b|\s-A\b/.test(task), task);
});
