/**
 * The keepalive and flow-control numbers (docs/operations.md "Slow and vanished peers on the
 * relay") resolve like every ceiling: option, then environment (WS_PING_INTERVAL_MS ...
 * WS_FLOW_POLL_MS), then the defaults table; a value that is not a positive number gives the
 * default. The relay then keeps the low-water mark at
 * or below the high-water mark and the cap at or above high-water + one upstream frame + slack.
 */
import assert from 'node:assert/strict';
import { resolveConfig } from '../../../src/config/resolve.ts';
import { DEFAULTS } from '../../../src/config/defaults.ts';
import { relayLimits } from '../../../src/ws/mod.ts';

const VARIABLES = {
  wsPingIntervalMs: 'WS_PING_INTERVAL_MS',
  wsPongTimeoutMs: 'WS_PONG_TIMEOUT_MS',
  wsHighWaterBytes: 'WS_HIGH_WATER_BYTES',
  wsLowWaterBytes: 'WS_LOW_WATER_BYTES',
  wsStallTimeoutMs: 'WS_STALL_TIMEOUT_MS',
  wsBufferCapBytes: 'WS_BUFFER_CAP_BYTES',
  wsFlowPollMs: 'WS_FLOW_POLL_MS',
} as const;

Deno.test('each keepalive and flow number comes from its variable, else the defaults table', () => {
  for (const [name, variable] of Object.entries(VARIABLES) as [keyof typeof VARIABLES, string][]) {
    assert.equal(resolveConfig({}, {})[name], DEFAULTS[name], name);
    assert.equal(resolveConfig({}, { [variable]: '1234' })[name], 1234, variable);
    assert.equal(resolveConfig({}, { [variable]: '-5' })[name], DEFAULTS[name], `${variable} -5`);
    assert.equal(resolveConfig({}, { [variable]: 'abc' })[name], DEFAULTS[name], `${variable} abc`);
    assert.equal(resolveConfig({ [name]: 99 }, { [variable]: '1234' })[name], 99, 'option first');
  }
});

Deno.test('the relay orders the marks and floors the cap', () => {
  const limits = relayLimits({
    wsHighWaterBytes: 1000,
    wsLowWaterBytes: 5000,
    wsBufferCapBytes: 10,
  });
  assert.equal(limits.wsLowWaterBytes, 1000);
  assert.equal(
    limits.wsBufferCapBytes,
    1000 + DEFAULTS.upstreamFrameBytes + DEFAULTS.wsFrameSlackBytes,
  );
  assert.ok(
    relayLimits().wsBufferCapBytes >= DEFAULTS.wsHighWaterBytes + DEFAULTS.upstreamFrameBytes,
  );
});
