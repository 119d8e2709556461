/* The whole laysim loop through the public C API: load a zoo model, price it on a target
 * (the layout selection problem), solve it, compile the chosen layouts, simulate.
 *
 *     cc api_loop.c $(pkg-config --cflags --libs laysim) -o loop && ./loop [zoo:NAME [SOLVER]]
 *
 * The last line, "objective=N cycles=M", is what `laysim problem | solve | compile | sim`
 * gives for the same model (tests/cli/library.sh checks it). */
#include <inttypes.h>
#include <stdio.h>

#include <laysim/laysim.h>

static int fail(laysim_ctx *cx, const char *what)
{
    fprintf(stderr, "loop: %s: %s\n", what, laysim_errmsg(cx));
    return laysim_errcode(cx) == LAYSIM_EINPUT ? 2 : 1;
}

/* Solve, compile and simulate one instance; prints the figures. */
static int run(laysim_ctx *cx, laysim_instance *in, const laysim_target *t, const char *solver)
{
    laysim_solution *s = NULL;
    laysim_program *pr = NULL;
    laysim_sim_result r;
    int rc = 0;
    if (laysim_instance_solve(cx, in, solver, NULL, &s))
        rc = fail(cx, "solve");
    else if (laysim_compile(cx, in, s, &pr))
        rc = fail(cx, "compile");
    else if (laysim_simulate(cx, t, pr, NULL, &r))
        rc = fail(cx, "simulate");
    if (rc == 0) {
        printf("%s: %s, %" PRIu64 " instructions, %" PRIu64 " cycles\n", solver,
               laysim_solution_status_name(s), laysim_program_instructions(pr), r.cycles);
        for (int e = 0; e < LAYSIM_ENGINES; e++)
            printf("  %-5s busy %10" PRIu64 " cycles (%.1f%%)\n", laysim_engine_name(e),
                   r.engine[e].busy_cycles, 100.0 * r.engine[e].utilization);
        printf("objective=%" PRId64 " cycles=%" PRIu64 "\n", laysim_solution_cost(s), r.cycles);
    }
    laysim_program_free(pr);
    laysim_solution_free(s);
    return rc;
}

int main(int argc, char **argv)
{
    const char *spec = argc > 1 ? argv[1] : "zoo:cnn";
    const char *solver = argc > 2 ? argv[2] : "exact";
    laysim_ctx *cx = laysim_new();
    if (!cx)
        return 1;
    laysim_model *m = NULL;
    laysim_target *t = NULL;
    laysim_instance *in = NULL;
    int rc;
    if (laysim_model_load(cx, spec, NULL, &m))
        rc = fail(cx, spec);
    else if (laysim_target_load(cx, "nc-v2", &t))
        rc = fail(cx, "target");
    else if (laysim_instance_new(cx, m, t, NULL, &in))
        rc = fail(cx, "instance");
    else {
        printf("laysim %s: %s, %d ops on %s\n", laysim_version(), spec,
               laysim_problem_ops(laysim_instance_problem(in)), laysim_target_name(t));
        rc = run(cx, in, t, solver);
    }
    laysim_instance_free(in);
    laysim_target_free(t);
    laysim_model_free(m);
    laysim_free(cx);
    return rc;
}
