/**
 * The defaults the documents write are the defaults table's (src/config/defaults.ts): each row of
 * docs/configuration.md whose option is a key of the table gives that key's value as its default
 * (the value first in the cell, a unit after it allowed), and `.env.example` writes the same value
 * on that variable's commented line. A default changed in the code and not in the documents, or
 * the reverse, fails here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { DEFAULTS } from '../../src/config/defaults.ts';
import { ROOT } from '../../scripts/host_process.ts';

const TABLE = DEFAULTS as unknown as Record<string, unknown>;

/** [variable, option, default cell] of every docs/configuration.md row naming a table key. */
function documentedRows(): [string, string, string][] {
  const text = readFileSync(`${ROOT}docs/configuration.md`, 'utf8');
  const rows: [string, string, string][] = [];
  for (const line of text.split('\n')) {
    const cells = line.split('|').slice(1, -1).map((c) => c.trim());
    const variable = /^`([A-Z][A-Z0-9_]*)`$/.exec(cells[0] ?? '')?.[1];
    const option = /^`?(\w+)`?$/.exec(cells[1] ?? '')?.[1];
    if (!variable || !option || !Object.hasOwn(TABLE, option)) continue;
    const value = TABLE[option];
    if (typeof value !== 'number' && typeof value !== 'string') continue;
    rows.push([variable, option, cells[2]]);
  }
  return rows;
}

/** The value a default cell starts with: a backticked literal, or a number with its separators. */
function leadingValue(cell: string): string | null {
  const literal = /^`([^`]*)`/.exec(cell);
  if (literal) return literal[1];
  const number = /^(\d[\d_,]*)/.exec(cell);
  return number ? number[1].replace(/[_,]/g, '') : null;
}

Deno.test("docs/configuration.md writes the defaults table's values", () => {
  const rows = documentedRows();
  assert.ok(rows.length >= 20, `${rows.length} rows name a key of the defaults table`);
  const wrong: string[] = [];
  for (const [variable, option, cell] of rows) {
    const shown = leadingValue(cell);
    if (shown === null) continue; // a computed default, said in words (the memory budget)
    if (shown !== String(TABLE[option])) {
      wrong.push(`${variable}: documented ${shown}, DEFAULTS.${option} is ${TABLE[option]}`);
    }
  }
  assert.deepEqual(wrong, []);
});

Deno.test(".env.example writes the defaults table's values", () => {
  const text = readFileSync(`${ROOT}.env.example`, 'utf8');
  const wrong: string[] = [];
  let compared = 0;
  for (const [variable, option, cell] of documentedRows()) {
    if (leadingValue(cell) === null) continue;
    const line = new RegExp(`^#\\s?${variable}=(.*)$`, 'm').exec(text);
    if (!line) continue;
    compared++;
    if (line[1].trim() !== String(TABLE[option])) {
      wrong.push(`${variable}: .env.example ${line[1]}, DEFAULTS.${option} is ${TABLE[option]}`);
    }
  }
  assert.ok(compared >= 20, `${compared} lines compared`);
  assert.deepEqual(wrong, []);
});
