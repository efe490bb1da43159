#!/bin/sh
# Checks the dynamic symbol table of libmqss.so: every defined symbol is
# public API (mqss_*), and the API is there (a few calls from each area).
# usage: check_exports.sh LIBMQSS_SO
set -eu
lib=$1
syms=$(nm -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//' | sort -u)
bad=$(printf '%s\n' "$syms" | grep -v '^mqss_' | grep -v '^$' || true)
if [ -n "$bad" ]; then
  echo "FAIL: $lib exports $(printf '%s\n' "$bad" | wc -l) symbols outside mqss_*:"
  printf '%s\n' "$bad" | head -20
  exit 1
fi
for want in mqss_session_create mqss_module_parse_file mqss_measure \
            mqss_policy_select mqss_catalog_load mqss_errmsg; do
  printf '%s\n' "$syms" | grep -qx "$want" || { echo "FAIL: $want is not exported"; exit 1; }
done
echo "ok: $(printf '%s\n' "$syms" | wc -l) symbols, all mqss_*"
