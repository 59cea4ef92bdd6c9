/**
 * A throwaway app that depends on the emitted npm package the way a user's app
 * does: `npm pack` of npm/ (built by `deno task build:npm`), then one
 * `npm install` of the tarball (plus the app's own packages, e.g. vite) into a
 * temp directory. npm's own cache is shared across runs (`--prefer-offline`).
 */
import { ROOT } from '../../scripts/host_process.ts';
import denoJson from '../../deno.json' with { type: 'json' };

/**
 * The packages the package declares as ranges (graphql, graphql-ws: docs/development.md
 * "Dependencies"), installed beside it at the versions deno.json pins, as an app that brings its
 * own would: so no test installs a version that floats with the registry.
 */
export const APP_OWN_PACKAGES: readonly string[] = ['graphql', 'graphql-ws'].map((name) => {
  const spec = (denoJson.imports as Record<string, string>)[name];
  return `${name}@${spec.slice(spec.lastIndexOf('@') + 1)}`;
});

/** A throwaway app directory with svc-gateway installed from its tarball. */
export interface PackageApp {
  /** The app directory (node_modules/svc-gateway inside). */
  dir: string;
  /** Removes the directory. */
  remove(): Promise<void>;
}

async function run(command: string[], cwd: string): Promise<string> {
  const [program, ...args] = command;
  const out = await new Deno.Command(program, { args, cwd, stdout: 'piped', stderr: 'piped' })
    .output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new Error(
      `${command.join(' ')} failed (code ${out.code}):\n${text}${
        new TextDecoder().decode(out.stderr)
      }`,
    );
  }
  return text;
}

/**
 * Packs npm/ and installs the tarball and `extra` packages (npm specs at an exact version, e.g.
 * 'vite@8.4.0') into a fresh app directory holding `files` (relative path to content).
 */
export async function createPackageApp(
  files: Record<string, string>,
  extra: string[] = [],
): Promise<PackageApp> {
  const dir = await Deno.makeTempDir({ prefix: 'svc-gateway-app-' });
  const packed = await run(['npm', 'pack', '--silent', '--pack-destination', dir], `${ROOT}npm`);
  const tarball = `${dir}/${packed.trim().split('\n').at(-1)}`;
  await Deno.writeTextFile(
    `${dir}/package.json`,
    JSON.stringify({ name: 'throwaway-app', private: true, type: 'module' }),
  );
  for (const [path, content] of Object.entries(files)) {
    const full = `${dir}/${path}`;
    await Deno.mkdir(full.slice(0, full.lastIndexOf('/')), { recursive: true });
    await Deno.writeTextFile(full, content);
  }
  await run([
    'npm',
    'install',
    '--prefer-offline',
    '--no-audit',
    '--no-fund',
    '--loglevel=error',
    tarball,
    ...APP_OWN_PACKAGES,
    ...extra,
  ], dir);
  return { dir, remove: () => Deno.remove(dir, { recursive: true }) };
}
