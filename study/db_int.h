/* study/db_int: the database handle and helpers shared by db.c, db_cells.c, db_tune.c
 * (internal to study/db). */
#ifndef LS_STUDY_DB_INT_H
#define LS_STUDY_DB_INT_H

#include <sqlite3.h>

#include "study/db.h"

struct study_db {
    sqlite3 *db;
    unsigned parts;          /* enum study_db_part opened for */
    int readonly;
    int schema;              /* the cells tables' version (1 only when read-only) */
    sqlite3_stmt *put;       /* cells insert (read-write only) */
    sqlite3_stmt *tget, *tput, *tcount;   /* tune_metric statements */
    char path[1024];
};

/* LS_ERR_IO naming the file, with sqlite's message. */
int db_fail(struct study_db *d, struct ls_error *err, const char *what);
int db_exec(struct study_db *d, const char *sql, struct ls_error *err);
/* Prepare the statements of each part (db_cells.c, db_tune.c). */
int db_cells_prepare(struct study_db *d, struct ls_error *err);
int db_tune_prepare(struct study_db *d, struct ls_error *err);

#endif
