/* twinfo's facts written in one of three forms from the same calls: text for people
 * (titled, indented), parsable (one `section:key:value` line per fact, ompi_info
 * style), or one JSON object. A fact has a key (lowercase letters, digits, '_'), used
 * by the machine forms, and a label, used by the text (NULL: not in the text). Sections and groups
 * nest: a group's key joins the keys below it with '.' in parsable lines, and becomes an object in
 * JSON. */
#ifndef TWINFO_REPORT_H
#define TWINFO_REPORT_H

#include <stddef.h>
#include <stdio.h>

typedef enum report_format { REPORT_TEXT, REPORT_PARSABLE, REPORT_JSON } report_format_t;

enum { REPORT_DEPTH_MAX = 4 };

typedef struct report {
    report_format_t format;
    FILE *out;
    int depth; /* sections and groups open */
    const char *key[REPORT_DEPTH_MAX];
    int members[REPORT_DEPTH_MAX + 1]; /* JSON: members written at each depth */
} report_t;

void report_begin(report_t *r, report_format_t format, FILE *out);
void report_end(report_t *r);
/* A section (depth 0) or a group inside one, at most REPORT_DEPTH_MAX deep; closed by
 * report_close. */
void report_open(report_t *r, const char *key, const char *title);
void report_close(report_t *r);

void report_text(report_t *r, const char *key, const char *label, const char *value);
void report_number(report_t *r, const char *key, const char *label, unsigned long long value);
/* yes / no in text and parsable lines, true / false in JSON. */
void report_bool(report_t *r, const char *key, const char *label, int value);
/* A JSON array; items joined by ", " in text and by ',' in parsable lines. */
void report_list(report_t *r, const char *key, const char *label, const char *const *items,
                 size_t n);

#endif
