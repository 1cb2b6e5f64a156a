#!/usr/bin/env bash
# Builds @tollgate/rate-limit and @tollgate/nest-guard as of a git revision into
# .ab/<rev>/node_modules/@tollgate/ (ignored by git), for the A/B probes (store-ab.ts,
# verify-ab.ts): their "before" side loads that nest-guard, which then loads that rate-limit, and
# every other package from the repository's node_modules. Prints the node_modules directory.
#   bash bench/probes/build-before.sh 118c500
set -euo pipefail
cd "$(dirname "$0")/../.."
rev=$(git rev-parse --short "$1")
dir=".ab/$rev"
rm -rf "$dir" && mkdir -p "$dir/src"
git archive "$rev" tsconfig.base.json libs/rate-limit libs/nest-guard libs/contracts | tar -x -C "$dir/src"
for lib in rate-limit nest-guard; do
  out="$dir/node_modules/@tollgate/$lib"
  mkdir -p "$out"
  cp "$dir/src/libs/$lib/package.json" "$out/"
  # Emits even where types resolve to the current sources (the JavaScript is what runs).
  npx tsc -p "$dir/src/libs/$lib/tsconfig.build.json" --outDir "$out/dist" > /dev/null 2>&1 || true
  [ -f "$out/dist/index.js" ] || { echo "build of $lib at $rev failed" >&2; exit 1; }
done
echo "$(pwd)/$dir/node_modules"
