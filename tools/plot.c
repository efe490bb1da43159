// Draws training curves with gnuplot: a 3x2 grid of panels from the columns
// of metrics.csv, each panel a table row below. Runs gnuplot as a child
// process with the script on its stdin; nothing is drawn in-process.
#include "plot.h"

#include "cli.h"
#include "internal.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

// Panel title and the CSV columns (by header name) it plots against env_steps.
static const struct panel {
  const char *title;
  const char *columns[3];
} panels[] = {
    {"episodic return", {"reward/episodic_return"}},
    {"policy entropy", {"policy/entropy"}},
    {"compilation success rate", {"env/compilation_success_rate"}},
    {"losses", {"loss/policy", "loss/value", "loss/entropy"}},
    {"approx KL and clip fraction", {"policy/approx_kl", "policy/clip_fraction"}},
    {"throughput (steps/s)", {"perf/steps_per_s"}},
};

static const struct panel expit_panels[] = {
    {"search gain (geomean confirmed speedup)", {"search_gain"}},
    {"cloning loss", {"clone_loss"}},
    {"PPO episodic return", {"ppo_return"}},
    {"hold-out speedup over the reference", {"holdout_speedup"}},
};

// The start of field `col` of the CSV line at `line`, or NULL when the line
// has fewer fields.
static const char *field(const char *line, int col) {
  for (; col > 0; col--) {
    line += strcspn(line, ",\n");
    if (*line != ',')
      return NULL;
    line++;
  }
  return line;
}

// Whether column `name` of the CSV text has a finite value in some row:
// gnuplot refuses to plot a panel without one ("x range is invalid"), which
// happens before the first hold-out figure, or in a run without PPO.
static bool has_data(const char *csv, const char *name) {
  size_t len = strlen(name);
  int col = 0;
  const char *f;
  while ((f = field(csv, col)) &&
         !(strncmp(f, name, len) == 0 && strchr(",\r\n", f[len])))
    col++;
  if (!f)
    return false;
  for (const char *line = strchr(csv, '\n'); line && line[1];
       line = strchr(line + 1, '\n')) {
    char *stop;
    f = field(line + 1, col);
    double v = f ? strtod(f, &stop) : NAN;
    if (f && stop != f && isfinite(v))
      return true;
  }
  return false;
}

// Draws `n` panels in a rows x cols grid from LOGDIR/CSV against column x. A
// panel none of whose columns has data yet is drawn empty, marked "no data".
static int draw(const char *logdir, const char *csv, const char *png,
                const char *x, const char *xlabel, const struct panel *panels,
                size_t n, int rows, int cols) {
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "%s/%s", logdir, csv);
  strbuf text = {0};
  if (!sb_read_file(&text, cmd)) {
    sb_free(&text);
    return cli_error("cannot read '%s' to plot it", cmd);
  }
  snprintf(cmd, sizeof cmd, "gnuplot 2>'%s/gnuplot.err'", logdir);
  FILE *gp = popen(cmd, "w");
  if (!gp) {
    sb_free(&text);
    return cli_error("cannot run gnuplot; install gnuplot-nox (scripts/install-deps.sh)");
  }
  fprintf(gp,
          "set terminal pngcairo size 1500,900 noenhanced\n"
          "set output '%s/%s'\n"
          "set datafile separator ','\n"
          "set datafile missing 'nan'\n"
          "set key noenhanced\n"
          "set grid\n"
          "set xlabel '%s'\n"
          "set multiplot layout %d,%d title 'MQSS-Selector training: %s'\n",
          logdir, png, xlabel, rows, cols, logdir);
  const char *data = text.data ? text.data : "";
  for (size_t i = 0; i < n; i++) {
    bool any = false;
    for (int c = 0; c < 3 && panels[i].columns[c]; c++)
      any = any || has_data(data, panels[i].columns[c]);
    if (!any) {
      fprintf(gp, "set title '%s (no data)'\n"
                  "plot [0:1] [0:1] 2 notitle\n", panels[i].title);
      continue;
    }
    fprintf(gp, "set title '%s'\nplot ", panels[i].title);
    for (int c = 0; c < 3 && panels[i].columns[c]; c++)
      fprintf(gp,
              "%s'%s/%s' using '%s':'%s' with linespoints title '%s'",
              c ? ", " : "", logdir, csv, x, panels[i].columns[c],
              panels[i].columns[c]);
    fputc('\n', gp);
  }
  fputs("unset multiplot\n", gp);
  sb_free(&text);
  int status = pclose(gp);
  if (status != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return cli_error("gnuplot failed drawing '%s/%s'; see %s/gnuplot.err",
                     logdir, png, logdir);
  return 0;
}

int plot_training_curves(const char *logdir) {
  return draw(logdir, "metrics.csv", "curves.png", "env_steps",
              "environment steps", panels, sizeof panels / sizeof panels[0], 2, 3);
}

int plot_expit_curves(const char *logdir) {
  return draw(logdir, "expit.csv", "expit.png", "round", "round", expit_panels,
              sizeof expit_panels / sizeof expit_panels[0], 2, 2);
}
