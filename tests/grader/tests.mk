# The grader's unit tests link the grader modules they test (tests/unit/test_grader_*.c).
# The objects are prerequisites, so they reach the link line through $^ exactly once.
$(BUILD)/tests/unit/test_grader_tap: $(BUILD)/obj/grader/tap.o $(BUILD)/obj/grader/model.o
$(BUILD)/tests/unit/test_grader_parse: $(BUILD)/obj/grader/parse.o $(BUILD)/obj/grader/model.o \
    $(BUILD)/obj/grader/doctor.o
$(BUILD)/tests/unit/test_grader_course: $(BUILD)/obj/grader/course.o $(BUILD)/obj/grader/model.o
$(BUILD)/tests/unit/test_grader_report: $(BUILD)/obj/grader/report.o $(BUILD)/obj/grader/model.o \
    $(BUILD)/obj/grader/course.o $(BUILD)/obj/grader/state.o $(BUILD)/obj/grader/parse.o
$(BUILD)/tests/unit/test_grader_runner: $(BUILD)/obj/grader/runner.o
