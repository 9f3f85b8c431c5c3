# Tools the harness tests use (built by make test).
TEST_BINS += $(BUILD)/tests/dump_edit
$(BUILD)/tests/dump_edit: $(BUILD)/obj/tests/harness/dump_edit.o
	@mkdir -p $(@D)
	$(call quiet,LINK,$@)$(CC) -o $@ $^
