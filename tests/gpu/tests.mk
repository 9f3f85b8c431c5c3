# A program for the test of the GPU's fills (tests/gpu/test_draw.sh).
TEST_BINS += $(BUILD)/tests/gpu/draw_match
$(BUILD)/tests/gpu/draw_match: $(BUILD)/obj/tests/gpu/draw_match.o $(LIBLAB)
	@mkdir -p $(@D)
	$(call quiet,LINK,$@)$(NVCC) $(GENCODE) -o $@ $^ $(LDCUDA)

# Device memory kept between a task's calls (tests/gpu/test_kept_memory.sh).
TEST_BINS += $(BUILD)/tests/gpu/kept_memory
$(BUILD)/tests/gpu/kept_memory: $(BUILD)/obj/tests/gpu/kept_memory.o $(LIBLAB)
	@mkdir -p $(@D)
	$(call quiet,LINK,$@)$(NVCC) $(GENCODE) -o $@ $^ $(LDCUDA)

# The GPU's full check of a product against the CPU's (tests/gpu/test_full_check.sh).
TEST_BINS += $(BUILD)/tests/gpu/full_check
$(BUILD)/tests/gpu/full_check: $(BUILD)/obj/tests/gpu/full_check.o $(LIBLAB)
	@mkdir -p $(@D)
	$(call quiet,LINK,$@)$(NVCC) $(GENCODE) -o $@ $^ $(LDCUDA)
