#!/usr/bin/env bash
# Builds the page sudoku-server serves at / into web/dist: the client generated from the proto
# (buf with protoc-gen-es), bundled with the page's code by esbuild into one file. dist/ is
# committed and embedded in the server (server/src/page.rs), so cargo alone builds the server;
# CI runs this again and fails if dist/ changed. Needs node and npm (the registry, once).
set -euo pipefail
cd "$(dirname "$0")"

npm ci --no-audit --no-fund --silent
export PATH="$PWD/node_modules/.bin:$PATH"

buf generate
mkdir -p dist
esbuild src/main.js --bundle --minify --format=esm --target=es2020 \
  --legal-comments=none --log-level=warning --outfile=dist/app.js
cp src/index.html src/style.css src/favicon.svg dist/
