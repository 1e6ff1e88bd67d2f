#!/usr/bin/env bash
# Checks the package as users get it: the packed tarball, not the source tree.
# publint (package.json and files), attw (types under every resolution), then a real install of
# the tarball in a scratch project that imports and requires every entry and runs the bin.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
npm run build --silent >/dev/null
tarball=$(npm pack --silent --pack-destination "$work" | tail -n 1)
echo "packed $tarball"
npx --no-install publint "$work/$tarball" --strict
npx --no-install attw "$work/$tarball" --profile node16
node scripts/test-packed-package.mjs "$work/$tarball"
