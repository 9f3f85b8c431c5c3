/* class.h — grading a whole class: `grader class DIR` and `grader collect DIR`.
 *
 * DIR/<student>/exercises/ holds each student's copy of the exercises (whole or partial).
 * Every student is built against the pristine course in a build directory of its own,
 * graded as `grader --batch` grades, and written to DIR/<student>/results.json (Gradescope
 * schema): the file `grader --batch --format gradescope` writes for the same exercises and
 * seed, plus the student's name and content hash (gradebook.h). A task whose file the student
 * did not hand in is "not_submitted" (JUnit: a failure, as not run). DIR/gradebook.csv and
 * DIR/junit.xml are merged from those files by the same CSV and JUnit writers as --batch's.
 *
 * The make that builds the course once is bounded by --make-timeout S (default 600 s) and
 * killed with its whole process group at the limit. A student's code is built and run only
 * inside grading, in the sandbox, with the engine's bounds (--build-timeout, --timeout); where
 * no sandbox can be made the class refuses to grade unless given --no-sandbox.
 *
 *   grader class DIR [--gpus 0,1] [--jobs N] [--force] [--make-timeout S] [--slurm ...]
 *   grader collect DIR
 *
 * Options are read with getopt_long (cli.c); the files of the class are listed in class_int.h.
 *
 * Both return a process exit status: 0 done, 1 some student could not be graded or is still
 * pending, 2 usage error. */
#ifndef GRADER_CLASS_H
#define GRADER_CLASS_H

int class_main(int argc, char **argv);
int collect_main(int argc, char **argv);

#endif /* GRADER_CLASS_H */
