// Corrupts a dump on purpose, so tests can prove the verifier notices:
//   dump_edit set FILE INDEX VALUE         element INDEX := VALUE (f32, f64 or i32 dumps)
//   dump_edit transpose FILE ROWS COLS     store the ROWS×COLS matrix transposed
//   dump_edit relabel FILE REP OUT         OUT := FILE passed off as repetition REP (rep= of
//                                          the header and nothing else changed)
#include "lab.h"

#include <stdlib.h>
#include <string.h>

static int fail(const char *msg, const char *arg)
{
    fprintf(stderr, "dump_edit: %s%s\n", msg, arg ? arg : "");
    return 2;
}

// Writes OUT: header with rep=REP, then the rest of f unchanged.
static int relabel(FILE *f, const char *header, const char *rep, const char *out_path)
{
    const char *at = strstr(header, " rep=");
    if (!at)
        return fail("no rep= in the header of the dump", NULL);
    const char *after = strchr(at + 1, ' ');
    FILE *out = fopen(out_path, "wb");
    if (!out || !after)
        return fail("cannot write ", out_path);
    fprintf(out, "%.*s rep=%s%s", (int)(at - header), header, rep, after);
    char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, n, out);
    fclose(f);
    return fclose(out) == 0 ? 0 : fail("cannot write ", out_path);
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return fail("usage: dump_edit set FILE INDEX VALUE | transpose FILE ROWS COLS | "
                    "relabel FILE REP OUT", NULL);
    FILE *f = fopen(argv[2], "r+b");
    if (!f)
        return fail("cannot open ", argv[2]);
    char header[512];
    if (!fgets(header, sizeof header, f))
        return fail("no header in ", argv[2]);
    long data = ftell(f);
    size_t esize = strstr(header, "type=f64") ? 8 : strstr(header, "type=u8") ? 1 : 4;
    if (!strcmp(argv[1], "set") && argc == 5) {
        unsigned char bytes[8];
        double v = atof(argv[4]);
        if (strstr(header, "type=f64"))
            memcpy(bytes, &v, 8);
        else if (strstr(header, "type=f32")) {
            float x = (float)v;
            memcpy(bytes, &x, 4);
        } else {
            int32_t x = (int32_t)v;
            memcpy(bytes, &x, esize);
        }
        fseek(f, data + atol(argv[3]) * (long)esize, SEEK_SET);
        fwrite(bytes, 1, esize, f);
    } else if (!strcmp(argv[1], "transpose") && argc == 5) {
        size_t rows = strtoul(argv[3], NULL, 10), cols = strtoul(argv[4], NULL, 10);
        unsigned char *a = malloc(rows * cols * esize), *b = malloc(rows * cols * esize);
        if (!a || !b || fread(a, esize, rows * cols, f) != rows * cols)
            return fail("short dump ", argv[2]);
        for (size_t i = 0; i < rows; i++)
            for (size_t j = 0; j < cols; j++)
                memcpy(b + (j * rows + i) * esize, a + (i * cols + j) * esize, esize);
        fseek(f, data, SEEK_SET);
        fwrite(b, esize, rows * cols, f);
        free(a);
        free(b);
    } else if (!strcmp(argv[1], "relabel") && argc == 5) {
        return relabel(f, header, argv[3], argv[4]);
    } else {
        return fail("unknown command ", argv[1]);
    }
    return fclose(f) == 0 ? 0 : fail("cannot write ", argv[2]);
}
