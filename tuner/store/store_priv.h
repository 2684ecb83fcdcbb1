/*
 * tuner/store/store_priv.h: what the files of the store share and nobody else
 * sees: the handle and the SQLite helpers. store_db.c opens and upgrades,
 * store_write.c writes, store_read.c reads; record.c parses what the kernel
 * writes.
 */
#ifndef SWEETSPOT_STORE_PRIV_H
#define SWEETSPOT_STORE_PRIV_H

#include "store.h"

#include <sqlite3.h>

struct store {
	sqlite3 *db;
	char *path;
	int writable;
};

/* error() with the database's path and SQLite's message. */
void store_sql_error(struct store *st, const char *what);
/* Runs SQL without results; 0 or -1 after error(). */
int store_exec(struct store *st, const char *sql);
int store_prepare(struct store *st, const char *sql, sqlite3_stmt **stmt);
/* One integer from a query (PRAGMA user_version, counts). */
int store_query_int(struct store *st, const char *sql, long long *out);
/* -1 after error() when st was opened read-only. */
int store_need_writable(struct store *st);

/* Binding: NULL strings, NaN doubles and negative integers go in as NULL,
 * so SQL sees "not reported". */
void store_bind_text(sqlite3_stmt *stmt, int i, const char *s);
void store_bind_double(sqlite3_stmt *stmt, int i, double v);
void store_bind_int(sqlite3_stmt *stmt, int i, long long v);
/* Reading: NULL reads as "" (text), NaN (double), -1 (int); col_strdup
 * gives a malloc'd copy or NULL. */
char *store_col_strdup(sqlite3_stmt *stmt, int i);
const char *store_col_text(sqlite3_stmt *stmt, int i);
double store_col_double(sqlite3_stmt *stmt, int i);
int store_col_int(sqlite3_stmt *stmt, int i);

#endif
