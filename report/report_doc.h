/* report/report_doc: one document emitter for report.html and report.md (internal). */
#ifndef LS_REPORT_DOC_H
#define LS_REPORT_DOC_H

#include <stdio.h>

#include "report/report_int.h"

struct doc {
    FILE *f;
    int html;
    int ncols;
    int fig;               /* figures numbered so far */
    int row;               /* inside doc_figs_row_begin .. _end: one figure of panels */
    int panel;             /* panels of that figure so far */
    char rowcap[2048];     /* their captions, "(a) ... (b) ..." */
};

void doc_h(struct doc *d, int level, const char *id, const char *text);
void doc_p(struct doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void doc_table(struct doc *d, int ncols, const char *const *hdr);
/* bold: bit i set = cell i bold */
void doc_row(struct doc *d, const char *const *cells, unsigned bold);
void doc_table_end(struct doc *d);
/* Figures only go to HTML; Markdown gets their captions and a pointer to the HTML report.
 * Figures are numbered once across the report; the figures between doc_figs_row_begin and
 * doc_figs_row_end are the panels (a), (b), ... of one figure, side by side. A plot's title
 * starts with its label from doc_panel_title ("Figure 7(b): ..." or "Figure 8: ..."), unique
 * across the report. */
int doc_fig_begin(struct doc *d, const char *caption);
void doc_fig_end(struct doc *d, const char *caption);
const char *doc_panel_title(const struct doc *d, const char *title, char *buf, size_t n);
void doc_figs_row_begin(struct doc *d);
void doc_figs_row_end(struct doc *d);

/* the findings summary, the first section (report_summary.c) */
void rp_doc_summary(const struct rp *r, struct doc *d);
/* the sections (report_rq.c) */
void rp_doc_target(const struct rp *r, struct doc *d, int t);
void rp_doc_whatif(const struct rp *r, struct doc *d);
/* the autotuner section (report_tune.c) */
void rp_doc_tune(const struct rp *r, struct doc *d, int t);

#endif
