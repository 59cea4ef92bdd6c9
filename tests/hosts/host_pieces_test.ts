/**
 * The pure pieces of the hosts, table-driven: the serverless `cfpath`
 * restoration, the static half's lexical containment, BASE_PATH, and the Vite
 * plugin's allowed-hosts join and loopback rule. The behaviour through real
 * servers is in the *_package_test.ts files beside this one.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { restorePath } from '../../hosts/vercel/cfpath.ts';
import { safeSegments } from '../../hosts/node/static.ts';
import { enterBasePath, normaliseBasePath } from '../../hosts/node/base_path.ts';
import { joinAllowedHosts, viteBindsLoopback } from '../../hosts/vite/plugin.ts';

Deno.test('cfpath: restored, re-encoded, or 400 InvalidRequest', () => {
  const restored: [string, string][] = [
    ['/api/svc?cfpath=graphql', '/svc/graphql'],
    ['/api/svc?cfpath=graphql&op=Q', '/svc/graphql?op=Q'],
    [
      '/api/svc?op=Q&cfpath=api%2Ffilestorage%2Fupload%2Fbot&botID=1',
      '/svc/api/filestorage/upload/bot?op=Q&botID=1',
    ],
    ['/api/svc?cfpath=a%2520b', '/svc/a%20b'],
    ['/api/svc?cfpath=graphql%252Fx', '/svc/graphql%2Fx'],
    ['/api/svc', '/api/svc'],
    ['/svc/healthz?x=1', '/svc/healthz?x=1'],
  ];
  for (const [target, url] of restored) assert.deepEqual(restorePath(target), { url }, target);
  for (
    const target of [
      '/api/svc?cfpath=a&cfpath=b',
      '/api/svc?cfpath=%2Fgraphql',
      '/api/svc?cfpath=..',
      '/api/svc?cfpath=a%2F.%2Fb',
      '/api/svc?cfpath=%252e%252e',
      '/api/svc?cfpath=graphql%3F',
      '/api/svc?cfpath=graphql%2523',
      '/api/svc?cfpath=%25',
      '/api/svc?cfpath=%252Fgraphql',
    ]
  ) {
    const result = restorePath(target);
    assert.ok('refused' in result, target);
    assert.equal(result.refused.code, 'InvalidRequest', target);
  }
});

Deno.test('static: lexical containment before any filesystem call', () => {
  assert.deepEqual(safeSegments('/'), []);
  assert.deepEqual(safeSegments('/assets/app.js'), ['assets', 'app.js']);
  assert.deepEqual(safeSegments('/a%20b//c/'), ['a b', 'c']);
  for (
    const path of [
      '/..',
      '/a/../b',
      '/%2e%2e/x',
      '/%2E%2e',
      '/a%2f..%2fb',
      '/a%5c..',
      '/.env',
      '/.',
      '/x%00',
      '/%zz',
    ]
  ) {
    assert.equal(safeSegments(path), null, path);
  }
});

Deno.test('BASE_PATH: normalised, entered, refused outside', () => {
  assert.equal(normaliseBasePath(undefined), '');
  assert.equal(normaliseBasePath('/'), '');
  assert.equal(normaliseBasePath('app/'), '/app');
  assert.equal(normaliseBasePath('/a/b'), '/a/b');
  for (const bad of ['/a/../b', '/a?x', '/a#x', '/a\\b']) {
    assert.throws(() => normaliseBasePath(bad), /BASE_PATH/, bad);
  }
  const cases: [string, string | null][] = [
    ['/app', '/'],
    ['/app/', '/'],
    ['/app?x=1', '/?x=1'],
    ['/app/svc/graphql', '/svc/graphql'],
    ['/apple', null],
    ['/', null],
    ['/svc/healthz', null],
  ];
  for (const [url, inside] of cases) {
    const req = { url } as IncomingMessage;
    assert.equal(enterBasePath(req, '/app'), inside !== null, url);
    assert.equal(req.url, inside ?? url, url);
  }
});

Deno.test('vite: allowedHosts joined (true is *), loopback binds', () => {
  assert.equal(joinAllowedHosts(undefined, undefined), undefined);
  assert.equal(joinAllowedHosts(undefined, []), undefined);
  assert.deepEqual(joinAllowedHosts('a.example, b.example', ['c.example']), [
    'a.example',
    'b.example',
    'c.example',
  ]);
  assert.deepEqual(joinAllowedHosts(['a.example'], ['a.example']), ['a.example']);
  assert.equal(joinAllowedHosts(['a.example'], true), true);
  assert.equal(joinAllowedHosts('*', ['c.example']), true);
  assert.equal(joinAllowedHosts(true, []), true);
  assert.equal(viteBindsLoopback(undefined), true);
  assert.equal(viteBindsLoopback('localhost'), true);
  assert.equal(viteBindsLoopback('127.0.0.1'), true);
  assert.equal(viteBindsLoopback('::1'), true);
  assert.equal(viteBindsLoopback(true), false);
  assert.equal(viteBindsLoopback('0.0.0.0'), false);
  assert.equal(viteBindsLoopback('192.168.1.5'), false);
});
