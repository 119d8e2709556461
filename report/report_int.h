/* report/report_int: the analysis shared by the report writers (internal). */
#ifndef LS_REPORT_INT_H
#define LS_REPORT_INT_H

#include <stdio.h>

#include "report/report.h"
#include "study/db.h"
#include "study/validate.h"

#define RP_NS 6            /* local greedy rulebased exact dp mcts */
#define RP_SIM 4           /* the paper's four simulated strategies (RQ1, RQ3, RQ4 sets) */
#define RP_DP 4
#define RP_MCTS 5          /* the autotuner: Table 1 and its own section only */
#define RP_NT 2            /* datasheet calibrated */

extern const char *const rp_strategy[RP_NS];
extern const char *const rp_table[RP_NT];
/* For people (report text, terminal): the calibrated table is fitted in sample. */
extern const char *const rp_table_label[RP_NT];
extern const char *const rp_color[RP_NS];
extern const char *const rp_label[RP_NS];
extern const char *const rp_palette[10];   /* for series or groups without their own colour */

struct rp_model {
    const char *name, *family, *group, *scale;
    long long ops;
    int tw;
};

struct rp_target {
    const char *label, *variant, *hash;
};

struct rp {
    const struct study_cells *cs;
    const struct report_opts *o;
    int nm, nt;
    struct rp_model *m;
    struct rp_target *t;
    int *idx;              /* [t][m][s][tb] -> cell index, -1 */
    int has_calib;
    int has_mcts;          /* some cell is an mcts cell */
    int base;              /* index of the what-if base target */
    /* RP_SIM rows of nm doubles: the per-model series a section sorts and plots (sized from
     * the input here, where running out of memory can be reported) */
    double *scratch;
};
/* Row i (0 <= i < RP_SIM) of r->scratch: room for one value per model. */
#define RP_ROW(r, i) ((r)->scratch + (size_t)(i) * (size_t)(r)->nm)

/* fidelity of one (target, table) over every model with >= 2 distinct assignments */
struct rp_fid {
    struct study_pairwise pw;
    double tau_mean, err_median, err_max;
    int heat[5][5];        /* [x = predicted bin][y = simulated bin] */
    int heat_models, models_single;
};

/* One point of the predicted-vs-simulated scatter: one distinct assignment of one model. */
struct rp_point {
    double x, y;           /* predicted, simulated (cycles) */
    int group;             /* the model's index */
    const char *label;     /* "model strategy" (into the caller's storage) */
};

int rp_build(struct rp *r, const struct study_cells *cs, const struct report_opts *o);
void rp_free(struct rp *r);
const struct study_cell *rp_cell(const struct rp *r, int t, int m, int s, int tb);
double rp_sim(const struct rp *r, int t, int m, int s, int tb);    /* NaN when none */
double rp_pred(const struct rp *r, int t, int m, int s, int tb);   /* NaN when none */
double rp_best(const struct rp *r, int t, int m, int tb);          /* min simulated */
/* The best simulated time known for (t, m): every strategy (mcts included) under every
 * table of the run; and Exact's regret under table tb against it (study/regret.h). */
double rp_best_known(const struct rp *r, int t, int m);
double rp_regret(const struct rp *r, int t, int m, int tb);
double rp_relperf(const struct rp *r, int t, int m, int s, int tb);/* best / sim * 100 */
double rp_gap(const struct rp *r, int t, int m, int s, int tb);    /* % over exact */
/* Exact's roofline (costmodel/roofline.h) of (t, m, tb) in cycles, and the fraction of it
 * Exact's simulated time reaches (bound / simulated, <= 1); NaN when the cell is missing,
 * failed, or from a store older than schema 3. */
double rp_roofline(const struct rp *r, int t, int m, int tb);
double rp_roofline_reached(const struct rp *r, int t, int m, int tb);
/* How much layouts matter: the worst simulated strategy over the best, minus 1 (NAN with
 * fewer than two); and the share of Exact's instruction time spent in conversions. */
double rp_spread(const struct rp *r, int t, int m, int tb);
/* A percentage already scaled (12.3 -> "12.3%"), "-" for NaN. */
const char *rp_fmt_pct(double pct, char *buf, size_t n);
double rp_conv_share(const struct rp *r, int t, int m, int tb);
/* Exact's engine busy fractions as "PE/ACT/DVE/POOL/DMA" percentages ("-" when unknown). */
const char *rp_fmt_busy(const struct study_cell *c, char *buf, size_t n);
/* mcts vs exact: % of exact's simulated time saved by mcts (NaN when either is missing) */
double rp_mcts_gain(const struct rp *r, int t, int m, int tb);

/* summary of the autotuner over the models of (t, tb) */
struct rp_tune_sum {
    int models;            /* with both an exact and an mcts simulated time */
    int failed;            /* mcts cells that failed */
    int beat;              /* mcts faster than exact by more than 0.5 % */
    double gain_mean, gain_max;           /* %, over `models` */
    long long budget_min, budget_max;     /* evaluations budget of the cells */
    double tune_seconds, exact_seconds;   /* totals over `models` */
};
void rp_tune_summary(const struct rp *r, int t, int tb, struct rp_tune_sum *s);
void rp_fidelity(const struct rp *r, int t, int tb, struct rp_fid *f);
/* The scatter's points of (t, tb): one per distinct assignment of every model whose
 * predicted and simulated cycles are both positive (log axes), into p (room
 * for nm * RP_SIM points) with labels in lab (as many rows of CELL_LABEL chars); the count. */
#define CELL_LABEL 48
int rp_fid_points(const struct rp *r, int t, int tb, struct rp_point *p, char (*lab)[CELL_LABEL]);
/* ops whose layouts differ between (t, m, s, tb) and (t2, m, s, tb); -1 when unknown */
int rp_changed(const struct rp *r, int t, int t2, int m, int s, int tb);
/* sorted copy helpers */
int rp_sorted(double *x, int n, int descending);   /* drops NaN, returns the count */
double rp_quantile(const double *sorted, int n, double q);

/* SVG plots (report_svg.c): write one <svg> element. The value axis is zoomed to the
 * data (at most 10 % of its range beyond it on each side) with round tick values, and
 * described by a <desc> with data-axis-lo/hi, data-data-lo/hi (log10 when data-logy) and the
 * plot area's pixel rows; plotted marks have class="data". The reference line (hline) is
 * drawn only where the axis shows it. */
struct rp_series {
    const char *name, *color;
    const double *y;       /* sorted values; plotted against % of points */
    int n;
    int style;             /* picks the dash pattern and marker shape (the strategy's index) */
};
/* Series that coincide (the same values): "A = B = C; D = E" into buf; the number of groups. */
int rp_coincide_note(const struct rp_series *s, int ns, char *buf, size_t n);
void rp_svg_cdf(FILE *f, const char *title, const char *ylabel, const struct rp_series *s,
                int ns, int logy, double hline);
void rp_svg_bars(FILE *f, const char *title, const char *xlabel, const char *ylabel,
                 const char *const *cats, const double *vals, int n, const char *color,
                 int percent_labels);
void rp_svg_grouped(FILE *f, const char *title, const char *ylabel, const char *const *cats,
                    int ncat, const char *const *snames, const char *const *colors, int nser,
                    const double *vals /* [ser][cat] */, double hline);
/* predicted (x) vs simulated (y) on shared log axes, the y = x line and the +-10 % and
 * +-25 % error bands, a marker per group (colour and shape) and a legend naming groups */
void rp_svg_scatter(FILE *f, const char *title, const char *xlabel, const char *ylabel,
                    const struct rp_point *p, int n, const char *const *groups, int ngroups);

/* text helpers */
void rp_html_escape(FILE *f, const char *s);
const char *rp_fmt_mcycles(double cycles, char *buf, size_t n);

/* writers */
int rp_write_html(const struct rp *r, const char *path, struct ls_error *err);
int rp_write_md(const struct rp *r, const char *path, struct ls_error *err);
int rp_write_json(const struct rp *r, const char *path, struct ls_error *err);
int rp_write_csv(const struct rp *r, const char *dir, struct ls_error *err);
void rp_terminal(const struct rp *r, FILE *out);

#endif
