/* class.h — grading a whole class: `grader class DIR` and `grader collect DIR`.
 *
 * DIR/<student>/exercises/ holds each student's copy of the exercises (whole or partial).
 * Every student is built against the pristine course in a build directory of its own,
 * graded as `grader --batch` grades, and written to DIR/<student>/results.json (Gradescope
 * schema). DIR/gradebook.csv and DIR/junit.xml are merged from those files.
 *
 *   grader class DIR [--gpus 0,1] [--jobs N] [--force] [--slurm ...]
 *   grader collect DIR
 *
 * Both return a process exit status: 0 done, 1 some student could not be graded or is still
 * pending, 2 usage error. */
#ifndef GRADER_CLASS_H
#define GRADER_CLASS_H

int class_main(int argc, char **argv);
int collect_main(int argc, char **argv);

#endif /* GRADER_CLASS_H */
