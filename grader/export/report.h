/* report.h — the course's results written out for `grader --batch`: text, JSON, CSV, JUnit
 * XML, Gradescope results.json, TAP 14. One writer per format (formats.h), shared with the
 * class gradebook (gradebook.h); every report is valid UTF-8 whatever the students' programs
 * printed (writer.h). Formats are documented field by field in grader/README.md. */
#ifndef GRADER_REPORT_H
#define GRADER_REPORT_H

#include <stdio.h>

#include "model.h"

enum report_format {
    REPORT_TEXT, REPORT_JSON, REPORT_CSV, REPORT_JUNIT, REPORT_GRADESCOPE, REPORT_TAP
};

/* "text", "json", "csv", "junit", "gradescope", "tap" -> 0 and *f; -1 when unknown. */
int report_format_parse(const char *name, enum report_format *f);

/* Writes the tasks of c that have a result (all tasks when only_graded is 0); 0 or -1. */
int report_write(const struct course *c, enum report_format f, int only_graded, FILE *out);

/* A class's merged gradebook (gradebook.h) as DIR/gradebook.csv, DIR/junit.xml and
 * DIR/reference.csv, by the same writers, atomically; 0 or -1. */
struct gb_book;
int gb_book_write(const struct gb_book *b, const char *dir);

#endif /* GRADER_REPORT_H */
