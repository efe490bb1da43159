// Training curves as PNG, drawn by gnuplot from a run's metrics.csv.
#ifndef MQSS_TOOLS_PLOT_H
#define MQSS_TOOLS_PLOT_H

// Writes LOGDIR/curves.png (one panel per metric group) from
// LOGDIR/metrics.csv. Returns 0 on success; on failure prints "mqss: ..." and
// returns 1 (gnuplot missing, no data, gnuplot error).
int plot_training_curves(const char *logdir);

// Writes LOGDIR/expit.png (search gain, cloning loss, PPO return, hold-out
// speedup per round) from LOGDIR/expit.csv. Same return as above.
int plot_expit_curves(const char *logdir);

#endif // MQSS_TOOLS_PLOT_H
