/**
 * src/http/host_header.ts, table-driven: a Host value is one host as the URL standard reads it
 * plus an optional numeric port, and nothing else (SPEC "Checks before any route" 1). The raw
 * socket tests on both hosts are tests/http/host_header_test.ts.
 */
import assert from 'node:assert/strict';
import { formatHost, isLoopbackHostName, parseHost } from '../../src/http/host_header.ts';

Deno.test('parseHost: hosts with an optional port, in the URL standard form', () => {
  const cases: [string, string][] = [
    ['example.com', 'example.com'],
    ['Example.COM:8443', 'example.com:8443'],
    ['localhost:0080', 'localhost:80'],
    ['127.1', '127.0.0.1'],
    ['0x7f.0.0.1:1', '127.0.0.1:1'],
    ['[::1]', '[::1]'],
    ['[0:0:0:0:0:0:0:1]:9', '[::1]:9'],
    ['a-b_c.example.', 'a-b_c.example.'],
  ];
  for (const [value, expected] of cases) {
    const host = parseHost(value);
    assert.ok(host, value);
    assert.equal(formatHost(host), expected, value);
  }
});

Deno.test('parseHost: anything else is null', () => {
  for (
    const value of [
      '',
      ' ',
      'a b',
      'a\tb',
      'localhost@evil.example',
      'user:pass@localhost',
      '[::1]junk',
      '[::1]:80x',
      '[::1',
      '::1',
      'localhost:80x',
      'localhost:',
      'localhost:123456',
      'localhost:65536',
      'localhost/evil',
      'localhost?x',
      'localhost#x',
      'local%68ost',
      'localhost\\evil',
      'a<b',
      '1.2.3.4.5',
      '[fe80::1%25eth0]',
    ]
  ) {
    assert.equal(parseHost(value), null, JSON.stringify(value));
  }
});

Deno.test('isLoopbackHostName: localhost, *.localhost, 127/8, [::1]', () => {
  for (const name of ['localhost', 'app.localhost', '127.0.0.1', '127.255.0.9', '[::1]']) {
    assert.ok(isLoopbackHostName(name), name);
  }
  for (const name of ['localhost.', 'localhost.evil', '128.0.0.1', '[::2]', 'evillocalhost']) {
    assert.ok(!isLoopbackHostName(name), name);
  }
});
