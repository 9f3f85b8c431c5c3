/* The sbatch script: its #SBATCH lines, the quoting of its command, refused option values. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "writer.h"
#include "slurm.h"

static void test_shell_word(void **state)
{
    (void)state;
    struct strbuf b = { 0 };
    slurm_shell_word(&b, "/opt/course/build");
    sb_puts(&b, " ");
    slurm_shell_word(&b, "it's a dir");
    sb_puts(&b, " ");
    slurm_shell_word(&b, "");
    sb_puts(&b, " ");
    slurm_shell_word(&b, "$(rm -rf x)");
    assert_string_equal(b.s, "/opt/course/build 'it'\\''s a dir' '' '$(rm -rf x)'");
    free(b.s);
}

static void test_script(void **state)
{
    (void)state;
    struct slurm_opts o;
    slurm_opts_init(&o);
    o.time = "45";
    o.mem = "8G";
    o.partition = "gpu";
    o.max_parallel = 4;
    o.extra[o.n_extra++] = "--qos=normal";
    const char *argv[] = { "/x/grader", "class", "/c/my class", "--array-task" };
    char *s = slurm_script(&o, "grader-class", 12, "/c/.grader/slurm/logs", "/course", argv, 4);
    assert_non_null(s);
    assert_true(strncmp(s, "#!/bin/bash\n", 12) == 0);
    const char *want[] = { "#SBATCH --array=0-11%4\n", "#SBATCH --gres=gpu:1\n",
                           "#SBATCH --time=45\n", "#SBATCH --mem=8G\n",
                           "#SBATCH --partition=gpu\n", "#SBATCH --qos=normal\n",
                           "#SBATCH --output=/c/.grader/slurm/logs/%A_%a.out\n",
                           "#SBATCH --chdir=/course\n",
                           "exec /x/grader class '/c/my class' --array-task\n" };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        assert_non_null(strstr(s, want[i]));
    assert_null(strstr(s, "--account"));
    free(s);

    o.gres = "none";
    o.max_parallel = 0;
    s = slurm_script(&o, "g", 1, "/l", "/c", argv, 1);
    assert_null(strstr(s, "--gres"));
    assert_non_null(strstr(s, "#SBATCH --array=0-0\n"));
    free(s);
}

static void test_script_refuses(void **state)
{
    (void)state;
    struct slurm_opts o;
    slurm_opts_init(&o);
    const char *argv[] = { "g" };
    assert_null(slurm_script(&o, "g", 0, "/l", "/c", argv, 1));     /* empty array */
    assert_null(slurm_script(&o, "g", 2, "/my logs", "/c", argv, 1)); /* space in a path */
    o.mem = "8G\n#SBATCH --uid=0";
    assert_null(slurm_script(&o, "g", 2, "/l", "/c", argv, 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shell_word),
        cmocka_unit_test(test_script),
        cmocka_unit_test(test_script_refuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
