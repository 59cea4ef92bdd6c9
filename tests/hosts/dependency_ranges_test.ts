/**
 * The emitted package's dependencies (docs/development.md "Dependencies"): graphql and graphql-ws,
 * which an app using the client library usually has itself, are declared as a caret range from the
 * version deno.json pins (the one CI tests), so a bundler keeps one copy; every other dependency is
 * pinned exactly. The package tests install the ranged ones at the pinned versions beside the
 * tarball (tests/hosts/package_app.ts), so no install floats.
 */
import assert from 'node:assert/strict';
import { ROOT } from '../../scripts/host_process.ts';
import denoJson from '../../deno.json' with { type: 'json' };
import { APP_OWN_PACKAGES } from './package_app.ts';

const PINNED = Object.fromEntries(
  Object.entries(denoJson.imports as Record<string, string>)
    .filter(([, spec]) => spec.startsWith('npm:'))
    .map(([name, spec]) => [name, spec.slice(spec.lastIndexOf('@') + 1)]),
);

Deno.test('package.json: graphql and graphql-ws as ranges from the pinned versions, the rest exact', async () => {
  const pkg = JSON.parse(await Deno.readTextFile(`${ROOT}npm/package.json`));
  const deps = pkg.dependencies as Record<string, string>;
  assert.equal(deps.graphql, `^${PINNED.graphql}`);
  assert.equal(deps['graphql-ws'], `^${PINNED['graphql-ws']}`);
  for (const [name, range] of Object.entries(deps)) {
    if (name === 'graphql' || name === 'graphql-ws') continue;
    assert.equal(range, PINNED[name], `${name} is pinned to deno.json's version`);
  }
  assert.deepEqual(APP_OWN_PACKAGES, [
    `graphql@${PINNED.graphql}`,
    `graphql-ws@${PINNED['graphql-ws']}`,
  ]);
});
