/* The class's board (grader/class/board.c): while students wait, a slot's tasks all go to its
 * own GPU whatever the load; once the queue is empty, to the least busy GPU, ties to the one
 * that began the task most. */
#include "cmocka_all.h"

#include "class_int.h"

enum { SLOTS = 4, GPUS = 2, TASKS = 3 };

static void each_slot_on_its_gpu_while_students_wait(void **state)
{
    (void)state;
    struct gpu_board *b = board_new(SLOTS, GPUS, TASKS);
    assert_non_null(b);
    /* slot 0 piles tasks on GPU 0 while GPU 1 stands idle: they stay there */
    for (int i = 0; i < 5; i++)
        assert_int_equal(board_pick(b, 0, (size_t)i % TASKS), 0);
    assert_int_equal(board_pick(b, 1, 0), 1);
    assert_int_equal(board_pick(b, 2, 1), 0);
    assert_int_equal(board_pick(b, 3, 2), 1);
    assert_int_equal(board_begun(b, 0, 0), 5);
    assert_int_equal(board_begun(b, 0, 1), 0);
    board_free(b);
}

static void least_busy_once_the_queue_is_empty(void **state)
{
    (void)state;
    struct gpu_board *b = board_new(SLOTS, GPUS, TASKS);
    assert_non_null(b);
    for (int i = 0; i < 3; i++)
        assert_int_equal(board_pick(b, 0, 0), 0);
    board_dry(b);
    /* GPU 0 has three in flight, GPU 1 none: slot 0's next tasks go to GPU 1 until even */
    assert_int_equal(board_pick(b, 0, 1), 1);
    assert_int_equal(board_pick(b, 2, 1), 1);
    assert_int_equal(board_pick(b, 0, 2), 1);
    /* three each: task 0, begun three times on GPU 0, goes there */
    assert_int_equal(board_pick(b, 2, 0), 0);
    /* done on GPU 0 twice: it is the least busy */
    board_done(b, 0, 0);
    board_done(b, 0, 0);
    assert_int_equal(board_pick(b, 3, 2), 0);
    /* a slot's process that ended leaves nothing in flight: GPU 1's three were slot 0's and 2's */
    board_clear(b, 0);
    board_clear(b, 2);
    assert_int_equal(board_pick(b, 1, 1), 1);
    board_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_slot_on_its_gpu_while_students_wait),
        cmocka_unit_test(least_busy_once_the_queue_is_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
