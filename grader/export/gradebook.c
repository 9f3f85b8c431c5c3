/* gradebook.c — results.json, gradebook.csv, junit.xml: see gradebook.h. */
#include "gradebook.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *dup_or_empty(const char *s) { return strdup(s ? s : ""); }

/* ---------------------------------------------------------------- student */
void gb_student_init(struct gb_student *s, const char *name)
{
    memset(s, 0, sizeof *s);
    s->name = dup_or_empty(name);
    s->hash = dup_or_empty("");
}

void gb_student_free(struct gb_student *s)
{
    for (size_t i = 0; i < s->n_tasks; i++) {
        struct gb_task *t = &s->tasks[i];
        free(t->id);
        free(t->title);
        free(t->outcome);
        free(t->output);
        cJSON_Delete(t->detail);
    }
    free(s->tasks);
    free(s->name);
    free(s->hash);
    memset(s, 0, sizeof *s);
}

int gb_student_add_task(struct gb_student *s, const char *id, const char *title, double score,
                        double max_score, const char *outcome, const char *output,
                        cJSON *detail)
{
    if (s->n_tasks == s->cap_tasks) {
        size_t cap = s->cap_tasks ? 2 * s->cap_tasks : 16;
        struct gb_task *grown = realloc(s->tasks, cap * sizeof *grown);
        if (!grown) {
            cJSON_Delete(detail);
            return -1;
        }
        s->tasks = grown;
        s->cap_tasks = cap;
    }
    struct gb_task *t = &s->tasks[s->n_tasks];
    t->id = dup_or_empty(id);
    t->title = dup_or_empty(title && title[0] ? title : id);
    t->outcome = dup_or_empty(outcome);
    t->output = dup_or_empty(output);
    t->score = score;
    t->max_score = max_score;
    t->detail = detail;
    if (!t->id || !t->title || !t->outcome || !t->output) {
        free(t->id); free(t->title); free(t->outcome); free(t->output);
        cJSON_Delete(detail);
        return -1;
    }
    s->n_tasks++;
    return 0;
}

const struct gb_task *gb_student_find(const struct gb_student *s, const char *id)
{
    for (size_t i = 0; i < s->n_tasks; i++)
        if (strcmp(s->tasks[i].id, id) == 0)
            return &s->tasks[i];
    return NULL;
}

double gb_student_score(const struct gb_student *s)
{
    double sum = 0;
    for (size_t i = 0; i < s->n_tasks; i++)
        sum += s->tasks[i].score;
    return sum;
}

double gb_student_max(const struct gb_student *s)
{
    double sum = 0;
    for (size_t i = 0; i < s->n_tasks; i++)
        sum += s->tasks[i].max_score;
    return sum;
}

/* ---------------------------------------------------------------- files */
int gb_write_atomic(const char *path, const char *data, size_t len)
{
    char *tmp = NULL;
    /* same directory as the target: rename(2) is atomic only within one file system */
    if (asprintf(&tmp, "%s.tmp.%ld", path, (long)getpid()) < 0)
        return -1;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        free(tmp);
        return -1;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, data + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    /* fsync before rename: after a crash the name points at complete contents or the old ones */
    int ok = done == len && fsync(fd) == 0;
    int saved = errno;
    if (close(fd) != 0)
        ok = 0;
    if (ok && rename(tmp, path) == 0) {
        free(tmp);
        return 0;
    }
    saved = errno ? errno : saved;
    unlink(tmp);
    free(tmp);
    errno = saved ? saved : EIO;
    return -1;
}

char *gb_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - 1 - n, f);
        if (n < cap - 1)
            break;
        cap *= 2;
        char *grown = realloc(buf, cap);
        if (!grown) {
            free(buf);
            buf = NULL;
        }
        buf = grown;
    }
    int err = ferror(f);
    fclose(f);
    if (!buf || err) {
        free(buf);
        errno = err ? EIO : ENOMEM;
        return NULL;
    }
    buf[n] = 0;
    if (len)
        *len = n;
    return buf;
}

/* ---------------------------------------------------------------- results.json */
char *gb_results_to_json(const struct gb_student *s)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    cJSON_AddNumberToObject(root, "score", gb_student_score(s));
    cJSON_AddNumberToObject(root, "execution_time", s->execution_time);
    size_t passed = 0;
    for (size_t i = 0; i < s->n_tasks; i++)
        passed += strcmp(s->tasks[i].outcome, "passed") == 0;
    char summary[160];
    snprintf(summary, sizeof summary, "%zu of %zu tasks passed; %g of %g points", passed,
             s->n_tasks, gb_student_score(s), gb_student_max(s));
    cJSON_AddStringToObject(root, "output", summary);
    cJSON_AddStringToObject(root, "visibility", "visible");
    cJSON_AddStringToObject(root, "stdout_visibility", "hidden");
    cJSON *extra = cJSON_AddObjectToObject(root, "extra_data");
    cJSON_AddStringToObject(extra, "student", s->name);
    cJSON_AddStringToObject(extra, "content_hash", s->hash);
    char seed[24];
    /* a string: JSON numbers lose 64-bit seeds above 2^53 */
    snprintf(seed, sizeof seed, "%" PRIu64, s->seed);
    cJSON_AddStringToObject(extra, "seed", seed);
    cJSON_AddNumberToObject(extra, "graded_at", (double)s->graded_at);
    cJSON *tests = cJSON_AddArrayToObject(root, "tests");
    for (size_t i = 0; i < s->n_tasks; i++) {
        const struct gb_task *t = &s->tasks[i];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddItemToArray(tests, j);
        char name[512];
        snprintf(name, sizeof name, "%s: %s", t->id, t->title);
        cJSON_AddStringToObject(j, "name", name);
        char number[24];
        snprintf(number, sizeof number, "%zu", i + 1);
        cJSON_AddStringToObject(j, "number", number);
        cJSON_AddNumberToObject(j, "score", t->score);
        cJSON_AddNumberToObject(j, "max_score", t->max_score);
        cJSON_AddStringToObject(j, "status", strcmp(t->outcome, "passed") == 0 ? "passed" : "failed");
        cJSON_AddStringToObject(j, "output", t->output);
        cJSON_AddStringToObject(j, "visibility", "visible");
        cJSON *tx = cJSON_AddObjectToObject(j, "extra_data");
        cJSON_AddStringToObject(tx, "task", t->id);
        cJSON_AddStringToObject(tx, "title", t->title);
        cJSON_AddStringToObject(tx, "outcome", t->outcome);
        if (t->detail)
            cJSON_AddItemToObject(tx, "result", cJSON_Duplicate(t->detail, 1));
    }
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    return text;
}

static const char *json_str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int json_num(const cJSON *o, const char *key, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v))
        return -1;
    *out = v->valuedouble;
    return 0;
}

int gb_results_from_json(const char *text, struct gb_student *s, char *err, size_t errlen)
{
    cJSON *root = cJSON_Parse(text);
    int rc = -1;
    if (!cJSON_IsObject(root)) {
        snprintf(err, errlen, "not a JSON object");
        goto out;
    }
    const cJSON *extra = cJSON_GetObjectItemCaseSensitive(root, "extra_data");
    const cJSON *tests = cJSON_GetObjectItemCaseSensitive(root, "tests");
    if (!cJSON_IsObject(extra) || !cJSON_IsArray(tests)) {
        snprintf(err, errlen, "no extra_data object or tests array");
        goto out;
    }
    const char *name = json_str(extra, "student"), *hash = json_str(extra, "content_hash");
    const char *seed = json_str(extra, "seed");
    if (name) {
        free(s->name);
        s->name = strdup(name);
    }
    free(s->hash);
    s->hash = strdup(hash ? hash : "");
    s->seed = seed ? strtoull(seed, NULL, 10) : 0;
    double v;
    s->execution_time = json_num(root, "execution_time", &v) == 0 ? v : 0;
    s->graded_at = json_num(extra, "graded_at", &v) == 0 ? (int64_t)v : 0;
    const cJSON *j;
    cJSON_ArrayForEach(j, tests) {
        const cJSON *tx = cJSON_GetObjectItemCaseSensitive(j, "extra_data");
        const char *id = json_str(tx, "task"), *outcome = json_str(tx, "outcome");
        double score, max_score;
        if (!id || !outcome || json_num(j, "score", &score) || json_num(j, "max_score", &max_score)) {
            snprintf(err, errlen, "test %d lacks task, outcome, score or max_score",
                     (int)s->n_tasks + 1);
            goto out;
        }
        const cJSON *detail = cJSON_GetObjectItemCaseSensitive(tx, "result");
        if (gb_student_add_task(s, id, json_str(tx, "title"), score, max_score, outcome,
                                json_str(j, "output"),
                                detail ? cJSON_Duplicate(detail, 1) : NULL) != 0) {
            snprintf(err, errlen, "out of memory");
            goto out;
        }
    }
    rc = 0;
out:
    cJSON_Delete(root);
    return rc;
}

int gb_results_write(const char *path, const struct gb_student *s)
{
    char *text = gb_results_to_json(s);
    if (!text) {
        errno = ENOMEM;
        return -1;
    }
    int rc = gb_write_atomic(path, text, strlen(text));
    free(text);
    return rc;
}

int gb_results_read(const char *path, struct gb_student *s, char *err, size_t errlen)
{
    char *text = gb_read_file(path, NULL);
    if (!text) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    int rc = gb_results_from_json(text, s, err, errlen);
    free(text);
    return rc;
}

/* ---------------------------------------------------------------- growing text */
void gb_buf_puts(struct gb_buf *b, const char *s)
{
    size_t n = strlen(s);
    if (b->failed)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *grown = realloc(b->data, cap);
        if (!grown) {
            b->failed = 1;
            return;
        }
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n + 1);
    b->len += n;
}

void gb_buf_printf(struct gb_buf *b, const char *fmt, ...)
{
    char *s = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = 1;
        return;
    }
    gb_buf_puts(b, s);
    free(s);
}

static char *gb_buf_take(struct gb_buf *b)
{
    if (b->failed) {
        free(b->data);
        return NULL;
    }
    if (!b->data)
        gb_buf_puts(b, "");
    return b->data;
}

void gb_csv_field(struct gb_buf *b, const char *s)
{
    /* a student's directory name is the one cell a student controls: a spreadsheet would run
     * "=cmd|..." as a formula, so such cells start with a quote that shows as text */
    int formula = s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' ||
                  s[0] == '\r';
    int quote = formula || strpbrk(s, ",\"\r\n") != NULL;
    if (!quote) {
        gb_buf_puts(b, s);
        return;
    }
    gb_buf_puts(b, formula ? "\"'" : "\"");
    for (const char *p = s; *p; p++)
        gb_buf_puts(b, *p == '"' ? "\"\"" : (char[2]){ *p, 0 });
    gb_buf_puts(b, "\"");
}

void gb_xml_text(struct gb_buf *b, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '&': gb_buf_puts(b, "&amp;"); break;
        case '<': gb_buf_puts(b, "&lt;"); break;
        case '>': gb_buf_puts(b, "&gt;"); break;
        case '"': gb_buf_puts(b, "&quot;"); break;
        case '\'': gb_buf_puts(b, "&apos;"); break;
        default:
            /* XML 1.0 allows no control characters but tab and newlines, even escaped */
            if (*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r')
                gb_buf_puts(b, "?");
            else
                gb_buf_puts(b, (char[2]){ (char)*p, 0 });
        }
    }
}

/* ---------------------------------------------------------------- the book */
void gb_book_init(struct gb_book *b) { memset(b, 0, sizeof *b); }

void gb_book_free(struct gb_book *b)
{
    for (size_t i = 0; i < b->n_cols; i++) {
        free(b->cols[i].id);
        free(b->cols[i].title);
    }
    for (size_t i = 0; i < b->n_rows; i++) {
        free(b->rows[i].name);
        if (b->rows[i].graded)
            gb_student_free(&b->rows[i].student);
    }
    free(b->cols);
    free(b->rows);
    memset(b, 0, sizeof *b);
}

int gb_book_add_column(struct gb_book *b, const char *id, const char *title, double max_score)
{
    if (b->n_cols == b->cap_cols) {
        size_t cap = b->cap_cols ? 2 * b->cap_cols : 16;
        struct gb_column *grown = realloc(b->cols, cap * sizeof *grown);
        if (!grown)
            return -1;
        b->cols = grown;
        b->cap_cols = cap;
    }
    struct gb_column *c = &b->cols[b->n_cols];
    c->id = dup_or_empty(id);
    c->title = dup_or_empty(title);
    c->max_score = max_score;
    if (!c->id || !c->title) {
        free(c->id);
        free(c->title);
        return -1;
    }
    b->n_cols++;
    return 0;
}

int gb_book_add(struct gb_book *b, const char *name, struct gb_student *s, const char *status)
{
    if (b->n_rows == b->cap_rows) {
        size_t cap = b->cap_rows ? 2 * b->cap_rows : 32;
        struct gb_row *grown = realloc(b->rows, cap * sizeof *grown);
        if (!grown)
            return -1;
        b->rows = grown;
        b->cap_rows = cap;
    }
    struct gb_row *r = &b->rows[b->n_rows];
    memset(r, 0, sizeof *r);
    if (!(r->name = strdup(name)))
        return -1;
    snprintf(r->status, sizeof r->status, "%s", status);
    if (s) {
        r->graded = 1;
        r->student = *s;
        memset(s, 0, sizeof *s);
    }
    b->n_rows++;
    return 0;
}

double gb_row_total(const struct gb_book *b, size_t row)
{
    const struct gb_row *r = &b->rows[row];
    double sum = 0;
    for (size_t c = 0; r->graded && c < b->n_cols; c++) {
        const struct gb_task *t = gb_student_find(&r->student, b->cols[c].id);
        sum += t ? t->score : 0;
    }
    return sum;
}

double gb_row_max(const struct gb_book *b, size_t row)
{
    const struct gb_row *r = &b->rows[row];
    double sum = 0;
    for (size_t c = 0; c < b->n_cols; c++) {
        const struct gb_task *t = r->graded ? gb_student_find(&r->student, b->cols[c].id) : NULL;
        /* a skipped task (no GPU) has max 0 in the student's results: it counts neither way */
        sum += t ? t->max_score : b->cols[c].max_score;
    }
    return sum;
}

static void csv_number(struct gb_buf *b, double v)
{
    gb_buf_printf(b, "%g", v);
}

char *gb_book_csv(const struct gb_book *b)
{
    struct gb_buf out = { 0 };
    gb_buf_puts(&out, "student,status,total,max");
    for (size_t c = 0; c < b->n_cols; c++) {
        gb_buf_puts(&out, ",");
        gb_csv_field(&out, b->cols[c].id);
        gb_buf_puts(&out, ",");
        char label[512];
        snprintf(label, sizeof label, "%s outcome", b->cols[c].id);
        gb_csv_field(&out, label);
    }
    gb_buf_puts(&out, "\r\n");
    for (size_t i = 0; i < b->n_rows; i++) {
        const struct gb_row *r = &b->rows[i];
        gb_csv_field(&out, r->name);
        gb_buf_puts(&out, ",");
        gb_csv_field(&out, r->status);
        gb_buf_puts(&out, ",");
        if (r->graded)
            csv_number(&out, gb_row_total(b, i));
        gb_buf_puts(&out, ",");
        csv_number(&out, gb_row_max(b, i));
        for (size_t c = 0; c < b->n_cols; c++) {
            const struct gb_task *t = r->graded ? gb_student_find(&r->student, b->cols[c].id) : NULL;
            gb_buf_puts(&out, ",");
            if (r->graded)
                csv_number(&out, t ? t->score : 0);
            gb_buf_puts(&out, ",");
            if (r->graded)
                gb_csv_field(&out, t ? t->outcome : GB_NOT_SUBMITTED);
        }
        gb_buf_puts(&out, "\r\n");
    }
    return gb_buf_take(&out);
}

/* JUnit's three ways to not pass, by what the outcome says about the submission */
static const char *junit_kind(const char *outcome)
{
    if (strcmp(outcome, "passed") == 0)
        return NULL;
    if (strcmp(outcome, "skipped") == 0)
        return "skipped";
    if (strcmp(outcome, "build_failed") == 0 || strcmp(outcome, "cuda_error") == 0 ||
        strcmp(outcome, "crashed") == 0 || strcmp(outcome, "timed_out") == 0)
        return "error";
    return "failure";
}

static void junit_case(struct gb_buf *o, const char *student, const struct gb_column *col,
                       const struct gb_task *t)
{
    const char *outcome = t ? t->outcome : GB_NOT_SUBMITTED;
    const char *kind = junit_kind(outcome);
    gb_buf_puts(o, "    <testcase classname=\"");
    gb_xml_text(o, student);
    gb_buf_puts(o, "\" name=\"");
    gb_xml_text(o, col->id);
    gb_buf_printf(o, "\" time=\"0\"");
    if (!kind) {
        gb_buf_puts(o, "/>\n");
        return;
    }
    gb_buf_printf(o, ">\n      <%s message=\"", kind);
    gb_xml_text(o, outcome);
    gb_buf_puts(o, "\" type=\"");
    gb_xml_text(o, outcome);
    gb_buf_puts(o, "\">");
    gb_xml_text(o, t ? t->output : "not submitted");
    gb_buf_printf(o, "</%s>\n    </testcase>\n", kind);
}

char *gb_book_junit(const struct gb_book *b)
{
    struct gb_buf o = { 0 };
    size_t tests = 0, failures = 0, errors = 0, skipped = 0;
    for (size_t i = 0; i < b->n_rows; i++)
        for (size_t c = 0; c < b->n_cols; c++) {
            const struct gb_row *r = &b->rows[i];
            const struct gb_task *t = r->graded ? gb_student_find(&r->student, b->cols[c].id) : NULL;
            const char *kind = r->graded ? junit_kind(t ? t->outcome : GB_NOT_SUBMITTED) : "skipped";
            tests++;
            failures += kind && strcmp(kind, "failure") == 0;
            errors += kind && strcmp(kind, "error") == 0;
            skipped += kind && strcmp(kind, "skipped") == 0;
        }
    gb_buf_puts(&o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    gb_buf_printf(&o, "<testsuites name=\"class\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
                      "skipped=\"%zu\">\n", tests, failures, errors, skipped);
    for (size_t i = 0; i < b->n_rows; i++) {
        const struct gb_row *r = &b->rows[i];
        size_t f = 0, e = 0, s = 0;
        for (size_t c = 0; c < b->n_cols; c++) {
            const struct gb_task *t = r->graded ? gb_student_find(&r->student, b->cols[c].id) : NULL;
            const char *kind = r->graded ? junit_kind(t ? t->outcome : GB_NOT_SUBMITTED) : "skipped";
            f += kind && strcmp(kind, "failure") == 0;
            e += kind && strcmp(kind, "error") == 0;
            s += kind && strcmp(kind, "skipped") == 0;
        }
        gb_buf_puts(&o, "  <testsuite name=\"");
        gb_xml_text(&o, r->name);
        gb_buf_printf(&o, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" "
                          "time=\"%.3f\">\n", b->n_cols, f, e, s,
                      r->graded ? r->student.execution_time : 0.0);
        for (size_t c = 0; c < b->n_cols; c++) {
            if (!r->graded) {
                gb_buf_puts(&o, "    <testcase classname=\"");
                gb_xml_text(&o, r->name);
                gb_buf_puts(&o, "\" name=\"");
                gb_xml_text(&o, b->cols[c].id);
                gb_buf_puts(&o, "\" time=\"0\">\n      <skipped message=\"pending\"/>\n"
                                "    </testcase>\n");
                continue;
            }
            junit_case(&o, r->name, &b->cols[c], gb_student_find(&r->student, b->cols[c].id));
        }
        gb_buf_puts(&o, "  </testsuite>\n");
    }
    gb_buf_puts(&o, "</testsuites>\n");
    return gb_buf_take(&o);
}

int gb_book_write(const struct gb_book *b, const char *dir)
{
    char *csv = gb_book_csv(b), *xml = gb_book_junit(b);
    char *csv_path = NULL, *xml_path = NULL;
    int rc = -1;
    if (csv && xml && asprintf(&csv_path, "%s/gradebook.csv", dir) >= 0 &&
        asprintf(&xml_path, "%s/junit.xml", dir) >= 0 &&
        gb_write_atomic(csv_path, csv, strlen(csv)) == 0 &&
        gb_write_atomic(xml_path, xml, strlen(xml)) == 0)
        rc = 0;
    free(csv);
    free(xml);
    free(csv_path);
    free(xml_path);
    return rc;
}
