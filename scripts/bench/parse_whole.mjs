// The baseline of the 'longdoc' bench scenario (scripts/bench/long_document.ts): graphql-js's
// parse() of one document, whole (no token limit, no locations, as the gateway parses), in the
// runtime this file is run on (`node` or `deno run`). Usage: parse_whole.mjs <file> <parses>.
// Prints one JSON line: CPU ms (user + system, every thread) per parse after two unmeasured ones,
// and the tokens graphql-js read.
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { parse } from 'graphql';

const [file, count] = process.argv.slice(2);
const text = readFileSync(file, 'utf8');
const parses = Number(count) > 0 ? Number(count) : 10;
let tokens = 0;
for (let i = 0; i < 2; i++) tokens = parse(text, { noLocation: true }).tokenCount;
const before = process.cpuUsage();
for (let i = 0; i < parses; i++) parse(text, { noLocation: true });
const used = process.cpuUsage(before);
console.log(JSON.stringify({ cpuMsPerParse: (used.user + used.system) / 1000 / parses, tokens }));
