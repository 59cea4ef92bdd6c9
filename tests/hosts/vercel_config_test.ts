/**
 * The serverless host's security headers on every path (SPEC "Forwarding rules": "all paths on the
 * serverless host"): the platform serves the app's pages itself, so the `vercel.json` the package
 * ships and the docs show carries a `headers` rule with every header of the spec's table, at the
 * spec's exact value, for every path. The values below are copied from the spec, not from the
 * code's table, so a change to either shows here.
 */
import assert from 'node:assert/strict';
import { ROOT } from '../../scripts/host_process.ts';
import { vercelConfig } from '../../hosts/vercel/config.ts';
import { SECURITY_HEADERS } from '../../src/http/security_headers.ts';

/** SPEC "Forwarding rules", the security-header table, value for value. */
const SPEC_SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': "default-src 'self'; script-src 'self'; " +
    "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob: https:; " +
    "media-src 'self' blob: https:; font-src 'self' data:; connect-src 'self' https: wss:; " +
    "frame-ancestors 'none'; base-uri 'self'; form-action 'self'; object-src 'none'",
  'strict-transport-security': 'max-age=63072000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': 'camera=(), geolocation=(), payment=(), usb=(), microphone=(self)',
};

/** Every header of the spec, at its exact value, set on every path by one rule of `config`. */
function assertEveryPathCarriesTheSpecHeaders(config: unknown, where: string): void {
  const rules = (config as { headers?: { source: string; headers: unknown[] }[] }).headers ?? [];
  const everyPath = rules.filter((rule) => rule.source === '/(.*)');
  assert.equal(everyPath.length, 1, `${where}: one headers rule for every path ("/(.*)")`);
  const set = Object.fromEntries(
    (everyPath[0].headers as { key: string; value: string }[]).map((h) => [h.key, h.value]),
  );
  assert.deepEqual(set, SPEC_SECURITY_HEADERS, where);
}

Deno.test("the code's security-header table holds the spec's exact values", () => {
  assert.deepEqual({ ...SECURITY_HEADERS }, SPEC_SECURITY_HEADERS);
});

Deno.test('vercel.json: every security header on every path', () => {
  assertEveryPathCarriesTheSpecHeaders(vercelConfig(), 'hosts/vercel/config.ts');
});

for (const doc of ['README.md', 'hosts/README.md', 'hosts/PACKAGE_README.md']) {
  Deno.test(`${doc}: the vercel.json it shows is the one the package ships`, async () => {
    const text = await Deno.readTextFile(`${ROOT}${doc}`);
    const blocks = [...text.matchAll(/```json(?: vercel\.json)?\n([^]*?)```/g)]
      .map((m) => m[1])
      .filter((block) => block.includes('"rewrites"'));
    assert.equal(blocks.length, 1, `${doc} shows one vercel.json`);
    const shown = JSON.parse(blocks[0]);
    assert.deepEqual(shown, vercelConfig());
    assertEveryPathCarriesTheSpecHeaders(shown, doc);
  });
}

Deno.test('the built package ships vercel.json', async () => {
  const shipped = JSON.parse(await Deno.readTextFile(`${ROOT}npm/vercel.json`));
  assert.deepEqual(shipped, vercelConfig());
  const pkg = JSON.parse(await Deno.readTextFile(`${ROOT}npm/package.json`));
  assert.ok(pkg.files.includes('vercel.json'), 'package.json files lists vercel.json');
});
