#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "util/fileio.h"

struct command {
    const char *name;
    const char *summary;
    int (*run)(int, char **);
};

static const struct command commands[] = {
#define CLI_COMMAND(name, summary) {#name, summary, cmd_##name},
#include "cli/commands.def"
#undef CLI_COMMAND
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
    fprintf(out,
            "usage: laysim [--version] [--help] COMMAND [ARGS]\n"
            "\n"
            "laysim: simulator-backed cost modelling and layout selection for a\n"
            "NeuronCore-style accelerator.\n"
            "\n"
            "commands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out,
            "\n"
            "`laysim help COMMAND` or `laysim COMMAND --help` describes one command.\n"
            "\n"
            "exit codes:\n"
            "  0  success\n"
            "  1  runtime failure (cannot write an output, out of memory, time or memory limit)\n"
            "  2  bad input or usage (missing, unreadable or malformed input file, unknown\n"
            "     option, impossible shape)\n");
}

int cli_print_help(const char *cmd, FILE *out)
{
#define CLI_COMMAND(name, summary)               \
    if (strcmp(cmd, #name) == 0) {               \
        fputs(cmd_##name##_help, out);           \
        return 0;                                \
    }
#include "cli/commands.def"
#undef CLI_COMMAND
    return -1;
}

int main(int argc, char **argv)
{
    ls_atomic_cleanup_on_signals(); /* a killed run leaves no NAME.tmp.XXXXXX behind */
    cli_set_program(argv[0]);
    opterr = 0; /* option errors are reported by each command as "laysim CMD: ..." */
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, CLI_FLAG_ARG(HELP)) || !strcmp(cmd, "-h")) {
        usage(stdout);
        return CLI_OK;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        printf("laysim %s\n", LAYSIM_VERSION);
        return CLI_OK;
    }
    if (!strcmp(cmd, "help")) {
        if (argc < 3) {
            usage(stdout);
            return CLI_OK;
        }
        if (cli_print_help(argv[2], stdout) == 0)
            return CLI_OK;
        fprintf(stderr, "laysim: unknown command '%s'; see `laysim --help`\n", argv[2]);
        return CLI_USAGE;
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(cmd, commands[i].name)) {
            if (cli_wants_help(argc - 1, argv + 1)) {
                cli_print_help(cmd, stdout);
                return CLI_OK;
            }
            cli_set_command(cmd);
            return commands[i].run(argc - 1, argv + 1);
        }
    fprintf(stderr, "laysim: unknown command '%s'; see `laysim --help`\n", cmd);
    return CLI_USAGE;
}
