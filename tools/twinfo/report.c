#include "report.h"

#include <string.h>

enum { LABEL_WIDTH = 30 };

/* A JSON string: quotes, backslashes and control characters escaped, valid UTF-8 kept,
 * any other byte (an environment variable may hold anything) as U+FFFD. */
static void json_string(FILE *out, const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', out);
    while (*p) {
        unsigned c = *p;
        if (c == '"' || c == '\\') {
            fprintf(out, "\\%c", c);
            p++;
        } else if (c < 0x20 || c == 0x7f) {
            fprintf(out, "\\u%04x", c);
            p++;
        } else if (c < 0x80) {
            fputc((int)c, out);
            p++;
        } else {
            /* lead byte: how many continuation bytes, and the range of the first one
             * (which rules out overlong forms, surrogates and code points past U+10FFFF) */
            size_t n = c >= 0xc2 && c <= 0xdf   ? 1
                       : c >= 0xe0 && c <= 0xef ? 2
                       : c >= 0xf0 && c <= 0xf4 ? 3
                                                : 0;
            unsigned lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
            unsigned hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
            size_t ok = n > 0 && p[1] >= lo && p[1] <= hi;
            for (size_t i = 2; ok && i <= n; i++) ok = p[i] >= 0x80 && p[i] <= 0xbf;
            if (ok) {
                fwrite(p, 1, n + 1, out);
                p += n + 1;
            } else {
                fputs("\\ufffd", out);
                p++;
            }
        }
    }
    fputc('"', out);
}

/* Parsable: one line per fact, so a line break in a value becomes a space. */
static void one_line(FILE *out, const char *s) {
    for (; *s; s++) fputc(*s == '\n' || *s == '\r' ? ' ' : *s, out);
}

/* What precedes a fact's value: its key path, its JSON member name, or its label. */
static void fact_head(report_t *r, const char *key, const char *label) {
    switch (r->format) {
    case REPORT_PARSABLE:
        fprintf(r->out, "%s:", r->key[0]);
        for (int i = 1; i < r->depth; i++) fprintf(r->out, "%s.", r->key[i]);
        fprintf(r->out, "%s:", key);
        break;
    case REPORT_JSON:
        fprintf(r->out, "%s\n%*s", r->members[r->depth]++ ? "," : "", 2 * (r->depth + 1), "");
        json_string(r->out, key);
        fputs(": ", r->out);
        break;
    case REPORT_TEXT: {
        int indent = 2 * r->depth;
        int width = LABEL_WIDTH - indent - 1;
        fprintf(r->out, "%*s%s:%*s ", indent, "", label,
                (int)strlen(label) < width ? width - (int)strlen(label) : 0, "");
        break;
    }
    }
}

void report_begin(report_t *r, report_format_t format, FILE *out) {
    memset(r, 0, sizeof *r);
    r->format = format;
    r->out = out;
    if (format == REPORT_JSON) fputc('{', out);
}

void report_end(report_t *r) {
    while (r->depth) report_close(r);
    if (r->format == REPORT_JSON) fputs("\n}\n", r->out);
}

void report_open(report_t *r, const char *key, const char *title) {
    switch (r->format) {
    case REPORT_PARSABLE:
        break;
    case REPORT_JSON:
        fprintf(r->out, "%s\n%*s", r->members[r->depth]++ ? "," : "", 2 * (r->depth + 1), "");
        json_string(r->out, key);
        fputs(": {", r->out);
        break;
    case REPORT_TEXT:
        if (r->depth == 0)
            fprintf(r->out, "%s%s\n", r->members[0]++ ? "\n" : "", title);
        else
            fprintf(r->out, "%*s%s\n", 2 * r->depth, "", title);
        break;
    }
    r->key[r->depth++] = key;
    r->members[r->depth] = 0;
}

void report_close(report_t *r) {
    if (!r->depth) return;
    if (r->format == REPORT_JSON) fprintf(r->out, "\n%*s}", 2 * r->depth, "");
    r->depth--;
}

void report_text(report_t *r, const char *key, const char *label, const char *value) {
    if (r->format == REPORT_TEXT && !label) return;
    fact_head(r, key, label);
    if (r->format == REPORT_JSON)
        json_string(r->out, value);
    else
        one_line(r->out, r->format == REPORT_TEXT && !value[0] ? "(none)" : value);
    if (r->format != REPORT_JSON) fputc('\n', r->out);
}

void report_number(report_t *r, const char *key, const char *label, unsigned long long value) {
    if (r->format == REPORT_TEXT && !label) return;
    fact_head(r, key, label);
    fprintf(r->out, "%llu%s", value, r->format == REPORT_JSON ? "" : "\n");
}

void report_bool(report_t *r, const char *key, const char *label, int value) {
    if (r->format == REPORT_TEXT && !label) return;
    fact_head(r, key, label);
    if (r->format == REPORT_JSON)
        fputs(value ? "true" : "false", r->out);
    else
        fprintf(r->out, "%s\n", value ? "yes" : "no");
}

void report_list(report_t *r, const char *key, const char *label, const char *const *items,
                 size_t n) {
    if (r->format == REPORT_TEXT && !label) return;
    fact_head(r, key, label);
    if (r->format == REPORT_JSON) fputc('[', r->out);
    for (size_t i = 0; i < n; i++) {
        if (i) fputs(r->format == REPORT_TEXT ? ", " : ",", r->out);
        if (r->format == REPORT_JSON)
            json_string(r->out, items[i]);
        else
            one_line(r->out, items[i]);
    }
    if (!n && r->format == REPORT_TEXT)
        fputs("none", r->out); /* not a blank a reader must guess at */
    fputs(r->format == REPORT_JSON ? "]" : "\n", r->out);
}
