#!/usr/bin/env bash
# Install the system packages MQSS-Selector needs on Debian 12. Idempotent: when every
# package is already present it returns at once without touching apt.
set -euo pipefail

pkgs=(pkg-config cmake make gcc g++
      libmlir-19-dev mlir-19-tools llvm-19-dev llvm-19-tools clang-19 libclang-rt-19-dev
      libyaml-dev libcjson-dev libopenblas-dev libsqlite3-dev libopenmpi-dev openmpi-bin
      libcmocka-dev libseccomp-dev gnuplot-nox hyperfine valgrind python3 python3-yaml chromium
      libomp5-19)

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
