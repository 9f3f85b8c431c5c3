# Lesson 09's check is lesson code, compiled into its harness, not the lab library: its unit
# test links the lesson's object too.
$(BUILD)/obj/tests/unit/test_ata_check.o: LESSON_INC := -Ilessons/09-ata-cublas
$(BUILD)/tests/unit/test_ata_check: $(BUILD)/obj/tests/unit/test_ata_check.o \
                                    $(BUILD)/obj/lessons/09-ata-cublas/ata_check.o $(LIBLAB_HOST)
	@mkdir -p $(@D)
	$(call quiet,LINK,$@)$(CC) -o $@ $^ -lcmocka -lm -lpthread
