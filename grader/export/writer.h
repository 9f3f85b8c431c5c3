/* writer.h — what every report format shares: the escaping of XML and CSV into a string
 * buffer (util.h's strbuf), and the last step before any byte leaves the grader: the text is made valid UTF-8.
 *
 * Students' programs print whatever bytes they like, and those bytes reach reasons, compiler
 * messages and mismatch lines. Every writer builds its whole document in a strbuf and hands it
 * out through wb_take, wb_emit or wb_write, which replace each invalid UTF-8 sequence (and the
 * non-characters U+FFFE and U+FFFF) with U+FFFD and drop the control characters other than tab,
 * newline and carriage return. Escaping (XML, CSV, JSON through cJSON) only ever adds ASCII, so
 * it commutes with that cleaning. */
#ifndef GRADER_WRITER_H
#define GRADER_WRITER_H

#include <stddef.h>
#include <stdio.h>

#include "util.h"   /* struct strbuf, sb_add, sb_puts, sb_printf */

/* s as XML character data or attribute value: & < > " ' escaped; control characters other than
 * tab and newline dropped (XML 1.0 allows none of them, not even as references). n bytes, or
 * the whole string when n is (size_t)-1. */
void wb_xml(struct strbuf *b, const char *s, size_t n);
/* s as one RFC 4180 cell, a formula shown as text (lab_csv_cell of the lab library, as_text):
 * quoted when it holds , " CR or LF; a cell a spreadsheet would run as a formula (= + - @ tab
 * CR first) is quoted and starts with ' so that it shows as text. */
void wb_csv(struct strbuf *b, const char *s);

/* The buffer's text, cleaned (see above), malloc'd and never NULL; the buffer is emptied. */
char *wb_take(struct strbuf *b);
/* Cleans and writes the text to out, then empties the buffer; 0 or -1. */
int wb_emit(struct strbuf *b, FILE *out);
/* Cleans and writes the text to path atomically (write_atomic, fs.h); 0 or -1 (errno set). */
int wb_write(struct strbuf *b, const char *path);

/* A copy of s[0..n) cleaned as above (malloc'd, NUL-terminated); its length in *out_len. */
char *utf8_clean(const char *s, size_t n, size_t *out_len);

#endif /* GRADER_WRITER_H */
