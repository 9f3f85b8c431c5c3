# Class grading's unit tests link the grader modules they test (tests/unit/test_class_*.c).
# The objects are prerequisites, so they reach the link line through $^ exactly once.
$(BUILD)/tests/unit/test_class_hash: $(BUILD)/obj/grader/hash.o
$(BUILD)/tests/unit/test_class_gradebook: $(BUILD)/obj/grader/gradebook.o
$(BUILD)/tests/unit/test_class_slurm: $(BUILD)/obj/grader/slurm.o $(BUILD)/obj/grader/gradebook.o
