/**
 * The upstream schema's text (`data/upstream/schema.graphql`, SDL), for schema.ts.
 *
 * In the repository this module reads the file. In the npm package it holds the text instead:
 * scripts/build_npm.ts (its INLINED_TEXT table) replaces this module's emitted JavaScript with a
 * function returning the file's content, so the installed package, which carries no data folder,
 * and the single executable bundled from it (where `import.meta.url` is empty) need no file.
 * Keep the one export as it is: the build checks its declaration before replacing it.
 */
import { readFileSync } from 'node:fs';

/** The SDL of the upstream schema, as UTF-8 text (read on every call; schema.ts caches the build). */
export function upstreamSchemaSdl(): string {
  return readFileSync(new URL('../../data/upstream/schema.graphql', import.meta.url), 'utf8');
}
