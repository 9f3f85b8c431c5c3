/* report.c — picks the writer of a format (report.h, formats.h), and writes the class's
 * gradebook files with theirs (gradebook.h). */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "fs.h"
#include "gradebook.h"

static const struct {
    const char *name;
    void (*write)(const struct course *c, int only_graded, struct strbuf *b);
} formats[] = {
    [REPORT_TEXT] = { "text", text_course },
    [REPORT_JSON] = { "json", json_course },
    [REPORT_CSV] = { "csv", csv_course },
    [REPORT_JUNIT] = { "junit", junit_course },
    [REPORT_GRADESCOPE] = { "gradescope", gradescope_course },
    [REPORT_TAP] = { "tap", tap_course },
};
#define N_FORMATS (sizeof formats / sizeof formats[0])

int report_format_parse(const char *name, enum report_format *f)
{
    for (size_t i = 0; i < N_FORMATS; i++)
        if (strcmp(name, formats[i].name) == 0) {
            *f = (enum report_format)i;
            return 0;
        }
    return -1;
}

int report_write(const struct course *c, enum report_format f, int only_graded, FILE *out)
{
    if ((size_t)f >= N_FORMATS)
        return -1;
    struct strbuf b = { 0 };
    formats[f].write(c, only_graded, &b);
    return wb_emit(&b, out);
}

/* ---------------------------------------------------------------- the class's gradebook */
int gb_book_write(const struct gb_book *b, const char *dir)
{
    static const char *const names[] = {"gradebook.csv", "junit.xml", "reference.csv"};
    char *texts[] = {gb_book_csv(b), gb_book_junit(b), gb_book_reference_csv(b)};
    int rc = 0;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char *path = path_join(dir, names[i]);
        if (rc == 0 && write_atomic(path, texts[i], strlen(texts[i])) != 0)
            rc = -1;
        free(path);
        free(texts[i]);
    }
    return rc;
}
