/* Write the binary form of every text program (*.lsprog) in SRCDIR into DIR as seeds for
 * fuzz_progz: no binary seeds live in the repository.
 *   seed_progz DIR SRCDIR */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "sim/program.h"

static int convert(const char *dir, const char *srcdir, const char *name)
{
    char in[4096], out[4096];
    snprintf(in, sizeof in, "%s/%s", srcdir, name);
    snprintf(out, sizeof out, "%s/%s.lsprogz", dir, name);
    struct sim_program *p = NULL;
    struct ls_error err;
    if (sim_program_load(&p, in, &err))
        return 0; /* not a valid program: no seed */
    FILE *f = fopen(out, "wb");
    int rc = !f || sim_program_write_binary(p, f);
    if (f && fclose(f))
        rc = 1;
    sim_program_free(p);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    DIR *d = opendir(argv[2]);
    if (!d)
        return 1;
    int rc = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n > 7 && !strcmp(e->d_name + n - 7, ".lsprog"))
            rc |= convert(argv[1], argv[2], e->d_name);
    }
    closedir(d);
    return rc;
}
