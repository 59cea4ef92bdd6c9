/**
 * The package's version, one place for it: scripts/build_npm.ts writes it into the npm package's
 * package.json, and `svc-gateway --version` (the bin, and the single executable built from it by
 * scripts/build_binary.ts) prints it.
 */
export const PACKAGE_VERSION = '0.1.0';
