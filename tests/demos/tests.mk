# A program for the test of the lab's cuBLAS status names (tests/demos/test_cublas_status.sh).
TEST_BINS += $(BUILD)/tests/demos/cublas_status
$(BUILD)/tests/demos/cublas_status: $(BUILD)/obj/tests/demos/cublas_status.o $(LIBLAB)
	@mkdir -p $(@D)
	$(call quiet,LINK,$@)$(NVCC) $(GENCODE) -o $@ $^ $(LDCUDA)
