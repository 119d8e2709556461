/* report/report_doc: the HTML / Markdown emitter and the two document writers. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_doc.h"
#include "util/fileio.h"

void doc_h(struct doc *d, int level, const char *id, const char *text)
{
    if (d->html) {
        fprintf(d->f, "<h%d id=\"%s\">", level, id ? id : "");
        rp_html_escape(d->f, text);
        fprintf(d->f, "</h%d>\n", level);
    } else {
        fprintf(d->f, "\n%.*s %s\n\n", level, "######", text);
    }
}

void doc_p(struct doc *d, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (d->html) {
        fputs("<p>", d->f);
        rp_html_escape(d->f, buf);
        fputs("</p>\n", d->f);
    } else {
        fprintf(d->f, "%s\n\n", buf);
    }
}

void doc_table(struct doc *d, int ncols, const char *const *hdr)
{
    d->ncols = ncols;
    if (d->html) {
        fputs("<div class=\"tbl\"><table><tr>", d->f);
        for (int i = 0; i < ncols; i++) {
            fputs("<th>", d->f);
            rp_html_escape(d->f, hdr[i]);
            fputs("</th>", d->f);
        }
        fputs("</tr>\n", d->f);
    } else {
        fputs("|", d->f);
        for (int i = 0; i < ncols; i++)
            fprintf(d->f, " %s |", hdr[i]);
        fputs("\n|", d->f);
        for (int i = 0; i < ncols; i++)
            fputs(i ? "---:|" : "---|", d->f);
        fputs("\n", d->f);
    }
}

void doc_row(struct doc *d, const char *const *cells, unsigned bold)
{
    if (d->html) {
        fputs("<tr>", d->f);
        for (int i = 0; i < d->ncols; i++) {
            fputs(i ? "<td class=\"n\">" : "<td>", d->f);
            if (bold & (1u << i))
                fputs("<b>", d->f);
            rp_html_escape(d->f, cells[i]);
            if (bold & (1u << i))
                fputs("</b>", d->f);
            fputs("</td>", d->f);
        }
        fputs("</tr>\n", d->f);
    } else {
        fputs("|", d->f);
        for (int i = 0; i < d->ncols; i++)
            fprintf(d->f, (bold & (1u << i)) ? " **%s** |" : " %s |", cells[i]);
        fputs("\n", d->f);
    }
}

void doc_table_end(struct doc *d)
{
    fputs(d->html ? "</table></div>\n" : "\n", d->f);
}

int doc_fig_begin(struct doc *d, const char *caption)
{
    (void)caption;
    if (d->html)
        fputs(d->row ? "<div class=\"panel\">" : "<figure>", d->f);
    return d->html;
}

static void fig_caption(struct doc *d, const char *caption)
{
    d->fig++;
    if (d->html) {
        fprintf(d->f, "<figcaption>Figure %d. ", d->fig);
        rp_html_escape(d->f, caption);
        fputs("</figcaption></figure>\n", d->f);
    } else {
        fprintf(d->f, "*Figure %d. %s (plot in report.html)*\n\n", d->fig, caption);
    }
}

void doc_fig_end(struct doc *d, const char *caption)
{
    if (!d->row) {
        fig_caption(d, caption);
        return;
    }
    size_t len = strlen(d->rowcap);
    snprintf(d->rowcap + len, sizeof d->rowcap - len, "%s(%c) %s", len ? " " : "",
             'a' + d->panel % 26, caption);
    d->panel++;
    if (d->html)
        fputs("</div>\n", d->f);
}

const char *doc_panel_title(const struct doc *d, const char *title, char *buf, size_t n)
{
    if (d->row)
        snprintf(buf, n, "Figure %d(%c): %s", d->fig + 1, 'a' + d->panel % 26, title);
    else
        snprintf(buf, n, "Figure %d: %s", d->fig + 1, title);
    return buf;
}

void doc_figs_row_begin(struct doc *d)
{
    d->row = 1;
    d->panel = 0;
    d->rowcap[0] = 0;
    if (d->html)
        fputs("<figure class=\"row\"><div class=\"figs\">\n", d->f);
}

void doc_figs_row_end(struct doc *d)
{
    d->row = 0;
    if (d->html)
        fputs("</div>", d->f);
    fig_caption(d, d->rowcap);
}

static void intro(const struct rp *r, struct doc *d)
{
    const struct report_opts *o = r->o;
    int whatif = o && o->kind && !strcmp(o->kind, "whatif");
    doc_h(d, 2, "run", "The run");
    doc_p(d,
          "%s on the simulated NeuronCore: %d model%s x %d target%s; strategies local, greedy, "
          "rulebased and exact are solved, compiled and simulated under the target's datasheet "
          "latency table%s; the treewidth DP is solved under a time and memory limit.",
          whatif ? "Hardware what-if sweep" : "The layout selection study", r->nm,
          r->nm == 1 ? "" : "s", r->nt, r->nt == 1 ? "" : "s",
          r->has_calib ? " and under the table calibrated on the same target (in sample)" : "");
    if (o && o->command && o->command[0])
        doc_p(d, "Command: %s", o->command);
    if (o && o->seconds > 0)
        doc_p(d, "Wall time of this run: %.1f s.", o->seconds);
    if (r->has_calib)
        doc_p(d, "Calibration (in-sample): per target, the calibration loop's fit "
                 "(docs/calibration.md): costmodel microbenchmarks run in the simulator and the "
                 "per-instruction fit refits the datasheet table, then the whole-program group "
                 "fit with 'max' (overlap-aware) aggregation and tied scales (one latency and "
                 "one throughput scale for every entry) and a vector issue latency is fitted "
                 "on the programs the four "
                 "strategies choose for this study's models under the datasheet table, then "
                 "under each refitted table (up to three rounds). The "
                 "calibrated figures are therefore in sample; `laysim loop` reports the "
                 "out-of-sample figures.");
    else
        doc_p(d, "Calibration: not run (--no-calibrate); only the datasheet table is reported.");
    doc_p(d, "Cycles are base-clock cycles of the simulated core, shown in millions (the "
             "paper's unit); models are scaled down by the options listed in each table, so "
             "absolute numbers are small.");
}

static int write_doc(const struct rp *r, const char *path, int html, struct ls_error *err)
{
    struct ls_atomic_file af;
    int rc = ls_atomic_open(&af, path, err);
    if (rc)
        return rc;
    struct doc d = {.f = af.fp, .html = html};
    const char *title = r->o && r->o->kind && !strcmp(r->o->kind, "whatif")
                            ? "laysim what-if report"
                            : "laysim study report";
    if (html) {
        fprintf(af.fp,
                "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                "<title>%s</title>\n<style>\n"
                "body{font-family:sans-serif;max-width:1150px;margin:1em auto;padding:0 1em;"
                "color:#222}\n"
                "table{border-collapse:collapse;margin:.6em 0;font-size:13px}\n"
                "th,td{border:1px solid #ccc;padding:3px 7px}th{background:#f0f0f0}\n"
                "td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
                "p{overflow-wrap:anywhere}\n"
                ".tbl{max-width:100%%;overflow-x:auto;margin:.6em 0}\n"
                ".tbl table{margin:0}\n"
                ".figs{display:flex;flex-wrap:wrap;gap:12px}\n"
                ".figs>.panel{min-width:0;max-width:100%%}\n"
                "svg{max-width:100%%;height:auto}\n"
                "figure{margin:.4em 0;border:1px solid #eee;padding:4px;max-width:100%%;"
                "box-sizing:border-box}\n"
                "figcaption{font-size:12px;color:#555;max-width:1060px}\n"
                "h2{border-bottom:2px solid #ddd;margin-top:1.6em}\n"
                "</style></head><body>\n<h1>%s</h1>\n",
                title, title);
    } else {
        fprintf(af.fp, "# %s\n\n", title);
    }
    rp_doc_summary(r, &d);
    intro(r, &d);
    if (r->nt > 1)
        rp_doc_whatif(r, &d);
    for (int t = 0; t < r->nt; t++)
        rp_doc_target(r, &d, t);
    if (html)
        fputs("</body></html>\n", af.fp);
    if (ferror(af.fp)) {
        ls_atomic_abort(&af);
        return ls_error_set(err, LS_ERR_IO, path, 0, 0, "write failed");
    }
    return ls_atomic_commit(&af, err);
}

int rp_write_html(const struct rp *r, const char *path, struct ls_error *err)
{
    return write_doc(r, path, 1, err);
}

int rp_write_md(const struct rp *r, const char *path, struct ls_error *err)
{
    return write_doc(r, path, 0, err);
}
