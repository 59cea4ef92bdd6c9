/**
 * What the startup report tells a user at a glance (SPEC "Startup behaviour and hosts"; the
 * configuration line of src/config/startup.ts): whether metrics are on, how many origins are
 * allowed, the frozen bot fence's count in words that read right, and a WARNING naming
 * SVC_API_BASE when it is unset (the built-in upstream answers nothing, so every forwarded
 * request would wait out its deadline while health says ok).
 */
import assert from 'node:assert/strict';
import { resolveConfig } from '../../src/config/resolve.ts';
import { configurationLine, startupLines } from '../../src/config/startup.ts';

const FACTS = { allowlistSize: null, registrySize: null };
const BASE = { token: 't', loopbackOnly: true, upstream: 'https://api.example' };

Deno.test('the configuration line says whether metrics are on, never the metrics token', () => {
  assert.match(configurationLine(resolveConfig(BASE, {}), FACTS), /; metrics off;/);
  assert.match(configurationLine(resolveConfig(BASE, { METRICS: '1' }), FACTS), /; metrics on;/);
  const token = configurationLine(resolveConfig(BASE, { METRICS_TOKEN: 'm-secret-1' }), FACTS);
  assert.match(token, /; metrics on \(token\);/);
  assert.ok(!token.includes('m-secret-1'));
});

Deno.test('the configuration line counts the allowed origins', () => {
  assert.match(configurationLine(resolveConfig(BASE, {}), FACTS), /; allowed origins 0;/);
  const two = resolveConfig(BASE, { ALLOWED_ORIGINS: 'https://a.example,https://b.example' });
  assert.match(configurationLine(two, FACTS), /; allowed origins 2;/);
});

Deno.test('a frozen bot fence of one bot reads "1 bot"', () => {
  const one = resolveConfig({ ...BASE, allowedBotIds: ['b1'] }, {});
  assert.match(configurationLine(one, FACTS), /bot fence frozen \(1 bot\)/);
  const two = resolveConfig({ ...BASE, allowedBotIds: ['b1', 'b2'] }, {});
  assert.match(configurationLine(two, FACTS), /bot fence frozen \(2 bots\)/);
});

Deno.test('SVC_API_BASE unset: a WARNING names it; set: no such line', () => {
  const unset = startupLines(resolveConfig({ token: 't', loopbackOnly: true }, {}), FACTS);
  const warning = unset.filter((l) => l.startsWith('WARNING: SVC_API_BASE'));
  assert.equal(warning.length, 1, unset.join('\n'));
  assert.match(warning[0], /https:\/\/upstream\.invalid/);
  const set = startupLines(
    resolveConfig({ token: 't', loopbackOnly: true }, { SVC_API_BASE: 'https://api.example' }),
    FACTS,
  );
  assert.ok(!set.some((l) => l.includes('SVC_API_BASE')), set.join('\n'));
});
