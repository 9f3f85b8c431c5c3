/* test_tui_md.c — the notes as the pager shows them (md_render.h): Markdown's marks gone,
 * styles where the marks were, tables as aligned columns that fit the window, images as
 * their caption and path. */
#include "cmocka_all.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_render.h"
#include "tui_text.h"

static int setup_utf8(void **state)
{
    (void)state;
    return setlocale(LC_ALL, "C.UTF-8") ? 0 : -1;
}

static struct md_doc render(const char *md, int width)
{
    struct md_doc d;
    assert_int_equal(md_render(md, strlen(md), width, "lessons/02-x/", 1, &d), 0);
    return d;
}

/* The style of byte `at` of line i. */
static enum md_style style_at(const struct md_doc *d, size_t i, size_t at)
{
    const struct md_line *l = &d->lines[i];
    for (size_t k = 0; k < l->n_spans; k++)
        if (at >= l->spans[k].start && at < l->spans[k].start + l->spans[k].len)
            return l->spans[k].style;
    fail_msg("byte %zu of line %zu (%s) has no span", at, i, l->text);
    return MD_TEXT;
}

/* The line holding s; fails when none does. */
static size_t line_with(const struct md_doc *d, const char *s)
{
    for (size_t i = 0; i < d->n_lines; i++)
        if (strstr(d->lines[i].text, s))
            return i;
    for (size_t i = 0; i < d->n_lines; i++)
        fprintf(stderr, "  |%s|\n", d->lines[i].text);
    fail_msg("no line holds '%s'", s);
    return 0;
}

static void no_line_holds(const struct md_doc *d, const char *s)
{
    for (size_t i = 0; i < d->n_lines; i++)
        if (strstr(d->lines[i].text, s))
            fail_msg("line %zu holds '%s': %s", i, s, d->lines[i].text);
}

static void headings_and_emphasis_lose_their_marks(void **state)
{
    (void)state;
    struct md_doc d = render("# Memory spaces\n\nA **bold** word, an *emphasised* one and "
                             "`code`.\n", 80);
    size_t h = line_with(&d, "Memory spaces");
    assert_string_equal(d.lines[h].text, "Memory spaces");
    assert_int_equal(style_at(&d, h, 0), MD_HEADING);
    size_t p = line_with(&d, "A bold word, an emphasised one and code.");
    const char *t = d.lines[p].text;
    assert_int_equal(style_at(&d, p, (size_t)(strstr(t, "bold") - t)), MD_STRONG);
    assert_int_equal(style_at(&d, p, (size_t)(strstr(t, "emphasised") - t)), MD_EMPH);
    assert_int_equal(style_at(&d, p, (size_t)(strstr(t, "code") - t)), MD_CODE);
    assert_int_equal(style_at(&d, p, 0), MD_TEXT);
    no_line_holds(&d, "**");
    no_line_holds(&d, "#");
    no_line_holds(&d, "`");
    assert_string_equal(d.lines[h + 1].text, "");   /* a blank line after the heading */
    md_doc_free(&d);
}

static void code_blocks_keep_their_lines(void **state)
{
    (void)state;
    struct md_doc d = render("Text.\n\n```c\nint f(int i)\n{\n    return 2 * i;\n}\n```\n", 80);
    size_t i = line_with(&d, "int f(int i)");
    assert_string_equal(d.lines[i].text, "    int f(int i)");
    assert_string_equal(d.lines[i + 2].text, "        return 2 * i;");
    assert_int_equal(style_at(&d, i + 2, 8), MD_CODE);
    no_line_holds(&d, "```");
    md_doc_free(&d);
}

static void lists_get_bullets_numbers_and_a_hanging_indent(void **state)
{
    (void)state;
    struct md_doc d = render("- first\n- second\n  - nested\n\n3. three\n4. four\n", 80);
    assert_string_equal(d.lines[line_with(&d, "first")].text, "\xe2\x80\xa2 first");
    size_t n = line_with(&d, "nested");
    assert_string_equal(d.lines[n].text, "  \xe2\x80\xa2 nested");
    assert_int_equal(d.lines[n].indent, 4);
    assert_string_equal(d.lines[line_with(&d, "three")].text, "  3. three");
    assert_string_equal(d.lines[line_with(&d, "four")].text, "  4. four");
    assert_int_equal(d.lines[line_with(&d, "four")].indent, 5);
    md_doc_free(&d);
}

static void links_are_text_and_images_caption_and_path(void **state)
{
    (void)state;
    struct md_doc d = render("See [the guide](https://example.com/g).\n\n"
                             "![Bandwidth per version](figures/bw.svg)\n", 80);
    size_t l = line_with(&d, "See the guide.");
    assert_int_equal(style_at(&d, l, 4), MD_LINK);
    no_line_holds(&d, "https://");
    size_t f = line_with(&d, "[figure:");
    assert_string_equal(d.lines[f].text, "[figure: Bandwidth per version \xe2\x80\x94 "
                                         "lessons/02-x/figures/bw.svg]");
    assert_int_equal(style_at(&d, f, 0), MD_FIGURE);
    no_line_holds(&d, "![");
    md_doc_free(&d);
}

static const char table_md[] =
    "| space | scope | notes |\n"
    "|---|---|---:|\n"
    "| register | thread | 255 per thread |\n"
    "| `__shared__` | block | up to 228 KiB per SM on Hopper, carved out of L1 |\n";

/* The display column at which the n-th separator glyph of line s starts. */
static int separator_column(const char *s, int n)
{
    const char *sep = "\xe2\x94\x82";
    const char *at = s;
    for (int i = 0; i <= n; i++) {
        at = strstr(at, sep);
        if (!at)
            return -1;
        if (i < n)
            at += strlen(sep);
    }
    char head[512];
    snprintf(head, sizeof head, "%.*s", (int)(at - s), s);
    return tui_width(head);
}

static void tables_are_aligned_columns(void **state)
{
    (void)state;
    struct md_doc d = render(table_md, 100);
    size_t h = line_with(&d, "space");
    no_line_holds(&d, "|");
    no_line_holds(&d, "---");
    assert_int_equal(style_at(&d, h, 0), MD_STRONG);
    int c0 = separator_column(d.lines[h].text, 0), c1 = separator_column(d.lines[h].text, 1);
    assert_true(c0 > 0 && c1 > c0);
    for (size_t i = h + 2; i < h + 4; i++) {
        assert_int_equal(separator_column(d.lines[i].text, 0), c0);
        assert_int_equal(separator_column(d.lines[i].text, 1), c1);
    }
    assert_non_null(strstr(d.lines[h + 1].text, "\xe2\x94\xbc"));   /* the rule under the head */
    /* Right-aligned column: its cells end at the same column. */
    assert_int_equal(tui_width(d.lines[h + 2].text), tui_width(d.lines[h + 3].text));
    md_doc_free(&d);
}

static void a_wide_table_wraps_inside_its_columns(void **state)
{
    (void)state;
    struct md_doc d = render(table_md, 50);
    size_t h = line_with(&d, "space");
    int c1 = separator_column(d.lines[h].text, 1);
    size_t last = line_with(&d, "Hopper");
    assert_true(last > line_with(&d, "__shared__"));   /* the long cell took several lines */
    for (size_t i = h; i <= last; i++) {
        assert_true(tui_width(d.lines[i].text) <= 50);
        if (i != h + 1)
            assert_int_equal(separator_column(d.lines[i].text, 1), c1);
    }
    md_doc_free(&d);
}

/* An identifier in a cell stays whole when the window has room for it, and a cell breaks
 * between words even when the last space in reach is early in the row. */
static void identifiers_in_cells_stay_whole(void **state)
{
    (void)state;
    static const char md[] =
        "| call | what it does |\n|---|---|\n"
        "| in cudaMemPrefetchAsync(p, n, loc, 0, s) | moves the pages ahead of the kernel that "
        "reads them, so that no page fault stalls it |\n"
        "| cudaFuncAttributeMaxDynamicSharedMemorySize | the opt-in above 48 KiB of shared "
        "memory per block |\n";
    struct md_doc d = render(md, 60);
    line_with(&d, "cudaMemPrefetchAsync(p,");
    line_with(&d, "cudaFuncAttributeMaxDynamicSharedMemorySize");
    for (size_t i = 0; i < d.n_lines; i++)
        assert_true(tui_width(d.lines[i].text) <= 60);
    md_doc_free(&d);
    /* Too narrow for it: it breaks at its seams (a capital after a small letter), and every
     * piece is whole. */
    d = render(md, 40);
    line_with(&d, "cudaFuncAttribute");
    line_with(&d, "MaxDynamic");
    line_with(&d, "SharedMemorySize");
    for (size_t i = 0; i < d.n_lines; i++)
        assert_true(tui_width(d.lines[i].text) <= 40);
    md_doc_free(&d);
}

static void quotes_and_rules(void **state)
{
    (void)state;
    struct md_doc d = render("> quoted words\n\n---\n\nafter\n", 40);
    size_t q = line_with(&d, "quoted words");
    assert_string_equal(d.lines[q].text, "\xe2\x94\x82 quoted words");
    assert_int_equal(style_at(&d, q, 0), MD_DIM);
    line_with(&d, "\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80");
    no_line_holds(&d, ">");
    md_doc_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(headings_and_emphasis_lose_their_marks),
        cmocka_unit_test(code_blocks_keep_their_lines),
        cmocka_unit_test(lists_get_bullets_numbers_and_a_hanging_indent),
        cmocka_unit_test(links_are_text_and_images_caption_and_path),
        cmocka_unit_test(tables_are_aligned_columns),
        cmocka_unit_test(a_wide_table_wraps_inside_its_columns),
        cmocka_unit_test(identifiers_in_cells_stay_whole),
        cmocka_unit_test(quotes_and_rules),
    };
    return cmocka_run_group_tests(tests, setup_utf8, NULL);
}
