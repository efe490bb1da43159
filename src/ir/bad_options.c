// Pass option values that crash MLIR 19.1.7 in process. Upstream passes
// trust some options: `affine-loop-unroll{unroll-factor=0}` divides by zero
// (SIGFPE) and kills whatever process runs it, which the library promises
// never to do. This table lists the values found to crash (each checked
// with mlir-opt-19 on a plain affine loop nest); pipeline_parse() refuses a
// pipeline that sets one, before any pass runs. It is a list of known
// failures, not a proof of safety: `mqss opt --isolate` and isolated
// selection contain the unknown ones.
#include "internal.h"

#include <stdlib.h>
#include <string.h>

// An integer option (or every element of a list option) must be >= min.
static const struct {
  const char *pass, *option;
  long long min;
  const char *why;
} bad_options[] = {
    {"affine-loop-unroll", "unroll-factor", 1, "divides by zero: SIGFPE"},
    {"affine-loop-unroll-jam", "unroll-jam-factor", 1, "divides by zero: SIGFPE"},
    {"affine-loop-tile", "cache-size", 1, "divides by zero: SIGFPE"},
    {"affine-loop-tile", "tile-sizes", 1, "divides by zero: SIGFPE"},
};

// In MLIR's printed pipeline (every option spelled out, `pass{a=1 b=2,3}`),
// finds `option=` inside the braces of `pass{` starting at `p`; returns the
// start of its value or NULL.
static const char *option_value(const char *p, const char *option) {
  size_t olen = strlen(option);
  int depth = 1;
  for (; *p && depth > 0; p++) {
    if (*p == '{')
      depth++;
    else if (*p == '}')
      depth--;
    else if (depth == 1 && (p[-1] == '{' || p[-1] == ' ') &&
             !strncmp(p, option, olen) && p[olen] == '=')
      return p + olen + 1;
  }
  return NULL;
}

bool pipeline_bad_option(const char *canonical, strbuf *why) {
  for (size_t i = 0; i < sizeof bad_options / sizeof bad_options[0]; i++) {
    size_t plen = strlen(bad_options[i].pass);
    for (const char *p = strstr(canonical, bad_options[i].pass); p;
         p = strstr(p + 1, bad_options[i].pass)) {
      bool whole = (p == canonical || strchr("(,", p[-1])) && p[plen] == '{';
      const char *v = whole ? option_value(p + plen + 1, bad_options[i].option)
                            : NULL;
      // A value is one integer or a comma-separated list of them.
      for (char *end; v && *v && !strchr(" }", *v); v = *end == ',' ? end + 1 : end) {
        long long x = strtoll(v, &end, 10);
        if (end == v)
          break;
        if (x < bad_options[i].min) {
          sb_printf(why, "%s{%s=%lld} crashes MLIR %s in process (it %s); "
                    "use %s >= %lld", bad_options[i].pass,
                    bad_options[i].option, x, mqss_mlir_version(),
                    bad_options[i].why, bad_options[i].option,
                    bad_options[i].min);
          return true;
        }
      }
    }
  }
  return false;
}
