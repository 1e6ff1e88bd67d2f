#!/usr/bin/env bash
# Checks the package as users get it: the packed tarball, not the source tree.
# publint (package.json and files), attw (types under every resolution, node10 included: the
# typesVersions of package.json map each subpath entry to its dist/<entry>.d.cts for projects on
# `moduleResolution: node10`), then a real install of the tarball in a scratch project that imports
# and requires every entry and runs the bin, after checking the tarball's file list.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# From no dist/ at all, as on a fresh clone: `prepack` must build it, or the tarball ships without it.
rm -rf dist
tarball=$(npm pack --silent --pack-destination "$work" 2>/dev/null | tail -n 1)
test -f "dist/index.js" || { echo "npm pack did not build dist/ (prepack)" >&2; exit 1; }
echo "packed $tarball"
npx --no-install publint "$work/$tarball" --strict
npx --no-install attw "$work/$tarball"
node scripts/test-packed-package.mjs "$work/$tarball"
