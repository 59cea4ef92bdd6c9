/**
 * Self time per function and per file of a V8 `.cpuprofile` (what `--cpu-prof` writes on Node
 * and Deno): each sample's time goes to the node it hit. Used by `relay_profile.ts`; also runs
 * alone: `deno run --allow-read scripts/bench/cpuprofile_summary.ts <file> [rows]`.
 */

/** The parts of a `.cpuprofile` read here. */
export interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
  }>;
  samples: number[];
  timeDeltas: number[];
}

/** The top `rows` functions and files by self time, as text (ms and % of the profile). */
export function summariseProfile(profile: CpuProfile, rows = 40): string {
  const byNode = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    byNode.set(id, (byNode.get(id) ?? 0) + Math.max(0, profile.timeDeltas[i] ?? 0));
  });
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const us = byNode.get(node.id) ?? 0;
    if (us === 0) continue;
    total += us;
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url.replace(/^.*\/(src|hosts|npm|node_modules)\//, '$1/') || '(native)';
    const fn = `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
    byFile.set(file, (byFile.get(file) ?? 0) + us);
  }
  const table = (map: Map<string, number>, n: number) =>
    [...map].sort((a, b) => b[1] - a[1]).slice(0, n).map(([name, us]) =>
      `${(us / 1000).toFixed(0).padStart(7)} ms ${
        (100 * us / total).toFixed(1).padStart(5)
      }%  ${name}`
    ).join('\n');
  return `total ${(total / 1000).toFixed(0)} ms\n-- self time per function\n${
    table(byFunction, rows)
  }\n-- self time per file\n${table(byFile, 25)}`;
}

if (import.meta.main) {
  const [path, rows] = Deno.args;
  console.log(summariseProfile(JSON.parse(Deno.readTextFileSync(path)), Number(rows ?? 40)));
}
