/* laysim merge: combine the results stores of several study / whatif runs (shards). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "report/report.h"
#include "study/db.h"
#include "util/fileio.h"

const char cmd_merge_help[] =
    "usage: laysim merge --out DIR [--json] [--quiet] DIR1 DIR2 ...\n"
    "Combine DIRi/results.sqlite (e.g. the shards of `laysim study --shard K/N`) into\n"
    "DIR/results.sqlite (created afresh; rows with the same model, target, strategy and\n"
    "table: the last one wins) and write the report of the union into DIR, as study and\n"
    "whatif do. docs/study.md has recipes for GNU parallel and Slurm job arrays.\n"
    "  --out DIR           the merged store and report (required)\n"
    "  -o DIR              deprecated spelling of --out (-o names a file everywhere else)\n"
    CLI_STUDY_JSON_HELP
    CLI_HELP(QUIET)
    "Exit codes: 0 ok, 1 runtime failure, 2 bad input or usage.\n";

static int print_summary_json(const char *out, int stores, const struct study_cells *cells,
                              struct ls_error *err)
{
    json_t *counts = json_pack("{s:i}", "stores", stores);
    if (cli_print_json(cli_study_json("merge", out, cells, counts)))
        return ls_error_msg(err, LS_ERR_IO, "cannot write the JSON summary");
    return 0;
}

int cmd_merge(int argc, char **argv)
{
    enum { O_OUT = 0x600 };
    static const struct option lo[] = {{"out", required_argument, NULL, O_OUT},
                                       CLI_LONGOPT(QUIET)
                                       CLI_LONGOPT(JSON)
                                       {NULL, 0, NULL, 0}};
    const char *out = NULL;
    int quiet = 0, json = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:q", lo, NULL)) != -1) {
        switch (c) {
        case 'o':
            fprintf(stderr, "laysim merge: -o DIR is deprecated, say --out DIR\n");
            /* fall through */
        case O_OUT: out = optarg; break;
        case CLI_OPT_JSON: json = 1; break;
        case 'q': quiet = 1; break;
        default: return cli_bad_option("merge", argv, "o:q");
        }
    }
    if (!out)
        return cli_usage("merge", "--out DIR is required");
    if (strlen(out) > 1000)   /* the store's name is built in a fixed buffer */
        return cli_usage("merge", "a directory name of at most 1000 bytes");
    if (optind >= argc)
        return cli_usage("merge", "give at least one input directory");
    struct ls_error err = {0};
    char path[1200];
    for (int i = optind; i < argc; i++) {
        if (strlen(argv[i]) > 1000)   /* the store's name is built in a fixed buffer */
            return cli_usage("merge", "a directory name of at most 1000 bytes");
        snprintf(path, sizeof path, "%s/results.sqlite", argv[i]);
        if (access(path, R_OK)) {
            ls_error_set(&err, LS_ERR_INPUT, path, 0, 0, "no results store here");
            return cli_report(&err);
        }
    }
    if (mkdir(out, 0777) && errno != EEXIST) {
        ls_error_set(&err, LS_ERR_IO, out, 0, 0, "cannot create directory: %s", strerror(errno));
        return cli_report(&err);
    }
    snprintf(path, sizeof path, "%s/results.sqlite", out);
    for (int i = optind; i < argc; i++) {
        char a[PATH_MAX], b[PATH_MAX];
        if (realpath(argv[i], a) && realpath(out, b) && !strcmp(a, b))
            return cli_usage("merge", "the output directory %s is also an input", out);
    }
    int lock;   /* one writer per directory: never replace a live run's store */
    if (ls_dir_lock(out, &lock, &err))
        return cli_report(&err);
    unlink(path);
    struct study_db *st = NULL;
    int rc = study_db_open(path, STUDY_DB_CELLS, &st, &err);
    for (int i = optind; !rc && i < argc; i++) {
        char in[1200];
        snprintf(in, sizeof in, "%s/results.sqlite", argv[i]);
        rc = study_db_merge_from(st, in, &err);
    }
    struct study_cells cells = {0};
    char kind[32] = "", hash[32] = "", cmdline[1024] = "";
    if (!rc)
        rc = study_db_meta_get(st, "kind", kind, sizeof kind, &err);
    if (!rc)
        rc = study_db_meta_get(st, "base_hash", hash, sizeof hash, &err);
    if (!rc)
        rc = study_db_meta_get(st, "command", cmdline, sizeof cmdline, &err);
    if (!rc)
        rc = study_db_load(st, &cells, &err);
    if (!rc) {
        struct report_opts ro = {kind[0] ? kind : "study", cmdline, 0, 1, hash};
        rc = report_write(&cells, &ro, out, &err);
        if (!rc && json)
            rc = print_summary_json(out, argc - optind, &cells, &err);
        else if (!rc && !quiet) {
            report_terminal(&cells, &ro, stdout);
            printf("\nmerged %d stores: %zu cells; report: %s/report.html\n", argc - optind,
                   cells.len, out);
        }
    }
    study_cells_free(&cells);
    study_db_close(st);
    ls_dir_unlock(lock);
    return rc ? cli_report(&err) : CLI_OK;
}
