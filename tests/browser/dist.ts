/**
 * The dist directory the browser tests serve: the example app (examples/build.ts) plus the
 * test harness (harness.html, harness.js: the emitted client bundled the same way).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildExample, bundle } from '../../examples/build.ts';

const HARNESS_HTML = `<!doctype html>
<meta charset="utf-8">
<title>svc-gateway client harness</title>
<script type="module" src="/harness.js"></script>
<p id="ready">loading</p>
`;

/** A fresh temp directory with the example app and the harness; remove it when done. */
export async function buildDist(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: 'svc-client-dist-' });
  await buildExample(dir);
  await bundle({ harness: new URL('./harness.ts', import.meta.url).pathname }, dir);
  writeFileSync(join(dir, 'harness.html'), HARNESS_HTML);
  return dir;
}
