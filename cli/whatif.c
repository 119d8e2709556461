/* laysim whatif: hardware what-if sweeps over target variants (the study driver of
 * study.c with --set taking value lists). */
#include "cli/cli.h"

const char cmd_whatif_help[] =
    "usage: laysim whatif --set KEY=V1,V2,... [--set ...] [--target NAME|FILE]\n"
    "                     [--quick | --models SET] [--out DIR] [--resume | --force]\n"
    "                     [--shard K/N] [--threads N] [--no-calibrate] [--mcts-evaluations N]\n"
    "                     [--json] [--quiet]\n"
    "For every target variant of the cartesian product of the --set lists (e.g.\n"
    "pe.rows=64,128,256  dma.bytes_per_ns=8,17,34  sbuf.bytes_per_partition=...), recalibrate\n"
    "the latency table on the variant (the calibration loop's fit: microbenchmarks, then\n"
    "the group fit on the variant's own strategy programs, in sample), re-solve every model\n"
    "with local, greedy, rulebased and exact, compile and simulate; report per model the\n"
    "end-to-end time, transposes inserted, how many layout decisions changed against the\n"
    "base target (--target, default nc-v2) and the calibrated fidelity, as tables and plots in\n"
    "DIR/report.html (default out/whatif), report.md, results.json, whatif.csv and\n"
    "DIR/results.sqlite. Every key and value is checked before anything runs (docs/targets.md\n"
    "lists the keys). Other options as for laysim study (--quick is the same model set),\n"
    "except that the autotuner cells are off unless --mcts-evaluations N (N > 0) asks.\n"
    CLI_STUDY_JSON_HELP
    CLI_HELP(QUIET)
    "Exit codes: 0 ok, 1 runtime failure, 2 bad input or usage (nothing is run).\n";

/* defined in study.c */
int cli_study_main(int argc, char **argv, int whatif);

int cmd_whatif(int argc, char **argv)
{
    return cli_study_main(argc, argv, 1);
}
