/* add_one.h — the TUI course task's contract: the student implements f. */
int f(int i);
