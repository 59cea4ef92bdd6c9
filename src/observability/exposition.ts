/**
 * The Prometheus text format (0.0.4) as the registry writes it, read back into families and
 * written out again: what a deployment's workers exchange so one scrape answers for all of them
 * (docs/operations.md "Metrics of a worker deployment"). It reads the registry's own output only:
 * `# HELP`, `# TYPE`, and `name{labels} value` lines; anything else is skipped.
 */

/** A metric family: its help, type and samples (`name{labels}` → value, in order). */
export interface Family {
  help: string;
  type: string;
  samples: Map<string, number>;
}

/** Families by name, in the order they first appeared. */
export type Families = Map<string, Family>;

/** The family a sample named `name` belongs to (histograms' `_bucket`, `_sum`, `_count`). */
function familyOf(current: string | null, name: string): string {
  if (current !== null && (name === current || name.startsWith(`${current}_`))) return current;
  return name;
}

/** Reads an exposition text into families. */
export function parseExposition(text: string): Families {
  const families: Families = new Map();
  let current: string | null = null;
  const family = (name: string) => {
    let f = families.get(name);
    if (!f) families.set(name, f = { help: '', type: 'untyped', samples: new Map() });
    return f;
  };
  for (const line of text.split('\n')) {
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta) {
      current = meta[2];
      if (meta[1] === 'HELP') family(current).help = meta[3];
      else family(current).type = meta[3];
      continue;
    }
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    if (space <= 0) continue;
    const series = line.slice(0, space);
    const value = Number(line.slice(space + 1));
    if (Number.isNaN(value)) continue;
    const brace = series.indexOf('{');
    const name = brace === -1 ? series : series.slice(0, brace);
    family(familyOf(current, name)).samples.set(series, value);
  }
  return families;
}

/** Writes families out as an exposition text. */
export function formatExposition(families: Families): string {
  const lines: string[] = [];
  for (const [name, f] of families) {
    if (f.help) lines.push(`# HELP ${name} ${f.help}`);
    lines.push(`# TYPE ${name} ${f.type}`);
    for (const [series, value] of f.samples) lines.push(`${series} ${value}`);
  }
  return lines.join('\n') + '\n';
}

/** `series` with `label="value"` as its first label (value: a worker name, digits and letters). */
export function withLabel(series: string, label: string, value: string): string {
  const brace = series.indexOf('{');
  if (brace === -1) return `${series}{${label}="${value}"}`;
  const rest = series.slice(brace + 1);
  return `${series.slice(0, brace)}{${label}="${value}"${rest === '}' ? '' : ','}${rest}`;
}
