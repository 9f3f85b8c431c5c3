# The TUI's unit tests link the grader modules they test (tests/unit/test_tui_*.c).
$(BUILD)/tests/unit/test_tui_draw: $(BUILD)/obj/grader/tui_draw.o
