/**
 * The client module loads in a browser without server code: every run-time import under
 * src/client/ is relative inside src/client/, graphql-ws's client entry, or graphql (its printer,
 * in document.ts only, for a DocumentNode without loc) (no node:, no supabase-js, no Deno APIs,
 * no other src/ folder). `import type` is allowed anywhere.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = new URL('../../src/client/', import.meta.url).pathname;

function files(path: string): string[] {
  return readdirSync(path, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(path, e.name)) : e.name.endsWith('.ts') ? [join(path, e.name)] : []
  );
}

Deno.test('src/client imports only itself, graphql-ws/client and the printer at run time', () => {
  const seen: string[] = [];
  for (const file of files(dir)) {
    const text = readFileSync(file, 'utf8');
    assert.ok(!/\bDeno\./.test(text), `${file} uses Deno APIs`);
    for (const m of text.matchAll(/^(import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)'/gms)) {
      if (m[2]) continue;
      const spec = m[3];
      seen.push(spec);
      const local = spec.startsWith('./') ||
        (spec.startsWith('../') && !spec.startsWith('../../') &&
          join(file, '..', spec).startsWith(dir));
      const printer = spec === 'graphql' && file.endsWith('/document.ts');
      assert.ok(
        local || spec === 'graphql-ws/client' || printer,
        `${file} imports ${spec} at run time`,
      );
    }
  }
  assert.ok(seen.includes('graphql-ws/client'), 'the scan read the imports');
});
