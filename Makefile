# CUDA Lab — one non-recursive build, out of tree into build/.
#
#   make            the lab library, every demo, every task twice (exercise and solution), the grader
#   make run        start the grader (installs missing packages first)
#   make test       the project's tests; GPU groups print SKIP without a GPU
#   make bench      every demo's tables to build/bench/*.csv, figures through gnuplot
#   make check-lab  exercises have a TODO and fail; solutions pass
#   make resources  registers / shared memory / spills of every kernel
#   make deps       install the packages the lab builds against (Debian/Ubuntu)
#   make notes      the lecture notes as HTML in build/notes/ (tools/notes/notes.mk)
#   make new-task LESSON=NN-name TASK=name [TITLE=...]   a new lesson with one task (tools/new-task.sh)
#   make clean
#
# Variables: ARCH=sm_90 (default: the GPU's, asked once and kept in build/.arch, else sm_90),
#            V=1 (show commands), CUDA_HOME.
#
# Layout the build discovers by itself (no list to edit when a lesson or task is added):
#   lessons/L/demo.cu            -> build/lessons/L/demo
#   lessons/L/T_harness.cu       -> build/exercises/L/T (with exercises/L/T.cu)
#                                   build/solutions/L/T (with solutions/L/T.cu)
#   lessons/L/<other>.cu / .c    lesson support code, linked into L's demo and tasks
#   lessons/L/lesson.mk          optional: extra flags for that lesson's targets
#   lessons/L/debug/P.cu         -> build/lessons/L/debug/P (a program with bugs, never graded)
#   tests/unit/test_*.c          -> build/tests/unit/test_* (cmocka)

MAKEFLAGS += --no-builtin-rules --no-builtin-variables
.SUFFIXES:
.DELETE_ON_ERROR:
.SECONDARY:
.DEFAULT_GOAL := all
SHELL := /bin/bash

CUDA_HOME ?= /usr/local/cuda
NVCC      := $(CUDA_HOME)/bin/nvcc
CC        := gcc
BUILD     ?= build
# Class grading builds one student's exercises against the pristine course:
#   make EXERCISES=class/alice/exercises EXBUILD=/tmp/grade/alice /tmp/grade/alice/exercises/L/T
# Only the student's objects and binaries go to EXBUILD; everything else comes from BUILD.
EXERCISES ?= exercises
EXBUILD   ?= $(BUILD)

# ARCH given (command line, environment) wins. Else the GPU's, asked once (nvidia-smi takes about
# a second on a GPU machine) and kept in $(BUILD)/.arch under a key read without a process: the
# host's name and what the driver says of its GPUs. Another host or GPU asks again.
# read_file: a file's text, empty when there is none ($(file <) alone fails on make 4.2).
read_file = $(if $(wildcard $(1)),$(file <$(1)))
ifeq ($(origin ARCH), undefined)
ARCH_CACHE := $(BUILD)/.arch
ARCH_KEY   := $(strip $(call read_file,/proc/sys/kernel/hostname) \
                $(foreach f,$(sort $(wildcard /proc/driver/nvidia/gpus/*/information)),$(file <$(f))))
ARCH_SAVED := $(strip $(call read_file,$(ARCH_CACHE)))
ifeq ($(wordlist 2,$(words $(ARCH_SAVED)),$(ARCH_SAVED)),$(ARCH_KEY))
ARCH := $(firstword $(ARCH_SAVED))
endif
ifeq ($(filter sm_%,$(ARCH)),)
ARCH := $(shell tools/detect-arch.sh)
$(shell mkdir -p $(BUILD) && printf '%s\n' '$(subst ','\'',$(ARCH) $(ARCH_KEY))' > $(ARCH_CACHE) 2>/dev/null)
endif
endif
ARCH_NUM  := $(patsubst sm_%,%,$(ARCH))
# SASS for ARCH plus PTX, so a newer GPU can still JIT what was built for an older one.
GENCODE   := -gencode arch=compute_$(ARCH_NUM),code=[sm_$(ARCH_NUM),compute_$(ARCH_NUM)]

INCLUDES  := -Icommon -I$(CUDA_HOME)/include
# -ffp-contract=off: no fused multiply-add on the CPU, so that drawn inputs (lab_draw.h) round
# as the GPU's do.
CFLAGS    := -std=c11 -O2 -g -Wall -Wextra -Werror=implicit-function-declaration \
             -ffp-contract=off -D_GNU_SOURCE $(INCLUDES)
NVCCFLAGS := -std=c++17 -O3 -g -lineinfo $(GENCODE) $(INCLUDES) \
             -Xcompiler -Wall,-Wno-unused-function,-ffp-contract=off --expt-relaxed-constexpr
LDCUDA    := -L$(CUDA_HOME)/lib64 -lcublas -lcudart -lpthread
# ncursesw and tinfo by their runtime names: Debian's libncursesw.so is a linker script that
# can pair one installation's libncursesw with another's libtinfo.
# libelf and libdw read the exercise object (objcheck); libstdc++ demangles its C++ names;
# Nettle hashes (SHA-256); libseccomp builds the filter that keeps a task's program to one
# process.
LDLIBS_GRADER := -l:libncursesw.so.6 -l:libtinfo.so.6 -linih -lcjson -lmd4c -ldw -lelf -lnettle \
                 -lseccomp -lstdc++ \
                 -lm -lpthread

ifneq ($(V),1)
Q := @
quiet = @printf '  %-7s %s\n' '$(1)' '$(2)';
else
Q :=
quiet =
endif

# ---------------------------------------------------------------- flags file
# Changing ARCH or the flags rebuilds every object: they all depend on this file.
FLAGS_FILE := $(BUILD)/.flags
FLAGS_NOW  := $(ARCH) | $(NVCCFLAGS) | $(CFLAGS)
# Read without a process; written only when it changed.
ifneq ($(strip $(call read_file,$(FLAGS_FILE))),$(strip $(FLAGS_NOW)))
$(shell mkdir -p $(BUILD); echo '$(FLAGS_NOW)' > $(FLAGS_FILE))
endif

# ---------------------------------------------------------------- pattern rules
$(BUILD)/obj/%.o: %.cu $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(call quiet,NVCC,$<)$(NVCC) $(NVCCFLAGS) $(LESSON_INC) $(EXTRA_NVCCFLAGS) -MMD -MP -c $< -o $@

$(EXBUILD)/obj/exercises/%.o: $(EXERCISES)/%.cu $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(call quiet,NVCC,$<)$(NVCC) $(NVCCFLAGS) $(LESSON_INC) $(EXTRA_NVCCFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/%.o: %.c $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(call quiet,CC,$<)$(CC) $(CFLAGS) $(LESSON_INC) $(EXTRA_CFLAGS) -MMD -MP -c $< -o $@

# An exercise's harness and lesson support, built without the CPU computations of the answer
# (LAB_EXERCISE_BUILD: lab_task's reference is NULL): the student's code has none to call.
$(BUILD)/obj-ex/%.o: %.cu $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(call quiet,NVCC,$<)$(NVCC) $(NVCCFLAGS) -DLAB_EXERCISE_BUILD $(LESSON_INC) $(EXTRA_NVCCFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj-ex/%.o: %.c $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(call quiet,CC,$<)$(CC) $(CFLAGS) -DLAB_EXERCISE_BUILD $(LESSON_INC) $(EXTRA_CFLAGS) -MMD -MP -c $< -o $@

# ---------------------------------------------------------------- the lab library
COMMON_C   := $(wildcard common/*.c)
COMMON_CU  := $(wildcard common/*.cu)
COMMON_OBJ := $(patsubst %,$(BUILD)/obj/%.o,$(basename $(COMMON_C) $(COMMON_CU)))
LIBLAB     := $(BUILD)/common/liblab.a
# The CUDA-free part, for unit tests that run without a GPU or the CUDA runtime.
LIBLAB_HOST := $(BUILD)/common/liblab_host.a

$(LIBLAB): $(COMMON_OBJ)
	@mkdir -p $(@D)
	$(call quiet,AR,$@)rm -f $@; ar rcs $@ $^

$(LIBLAB_HOST): $(patsubst %,$(BUILD)/obj/%.o,$(basename $(COMMON_C)))
	@mkdir -p $(@D)
	$(call quiet,AR,$@)rm -f $@; ar rcs $@ $^

# The library an exercise links: the same without the CPU's matrix product.
LIBLAB_EX  := $(BUILD)/common/liblab_ex.a
$(LIBLAB_EX): $(filter-out $(BUILD)/obj/common/gemm_ref.o,$(COMMON_OBJ))
	@mkdir -p $(@D)
	$(call quiet,AR,$@)rm -f $@; ar rcs $@ $^

# ---------------------------------------------------------------- lessons, demos, tasks
LESSONS   := $(patsubst lessons/%/,%,$(sort $(dir $(wildcard lessons/*/lesson.ini lessons/*/demo.cu lessons/*/*_harness.cu))))
HARNESSES := $(wildcard lessons/*/*_harness.cu)
TASKS     := $(patsubst lessons/%_harness.cu,%,$(HARNESSES))
DEMOS     := $(patsubst lessons/%/demo.cu,$(BUILD)/lessons/%/demo,$(wildcard lessons/*/demo.cu))
TASK_BINS := $(foreach t,$(TASKS),$(EXBUILD)/exercises/$(t) $(BUILD)/solutions/$(t))

-include $(wildcard lessons/*/lesson.mk)

# support objects of lesson $(1); $(2) = obj or obj-ex (an exercise's)
lesson_support = $(patsubst %,$(BUILD)/$(or $(2),obj)/%.o,$(basename $(filter-out lessons/$(1)/demo.cu %_harness.cu, \
                   $(wildcard lessons/$(1)/*.cu lessons/$(1)/*.c))))

define LESSON_RULES
$(BUILD)/obj/lessons/$(1)/%.o $(BUILD)/obj-ex/lessons/$(1)/%.o $(EXBUILD)/obj/exercises/$(1)/%.o \
$(BUILD)/obj/solutions/$(1)/%.o: LESSON_INC := -Ilessons/$(1)
$(BUILD)/lessons/$(1)/demo: $(BUILD)/obj/lessons/$(1)/demo.o $(call lesson_support,$(1)) $(LIBLAB)
	@mkdir -p $$(@D)
	$$(call quiet,LINK,$$@)$(NVCC) $(GENCODE) -o $$@ $$^ $(LDCUDA) $$(EXTRA_LDFLAGS)
endef
$(foreach l,$(LESSONS),$(eval $(call LESSON_RULES,$(l))))

# lessons/L/debug/P.cu -> build/lessons/L/debug/P: programs with bugs on purpose, for the
# debugging tools a lesson's notes teach; built on their own, never linked into a task, never
# graded. -G: device code unoptimized, so cuda-gdb sees every variable.
DEBUG_PROGS := $(patsubst lessons/%.cu,$(BUILD)/lessons/%,$(wildcard lessons/*/debug/*.cu))
$(DEBUG_PROGS): $(BUILD)/lessons/%: lessons/%.cu $(LIBLAB) $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(call quiet,NVCC,$<)$(NVCC) -std=c++17 -g -G $(GENCODE) $(INCLUDES) -o $@ $< $(LIBLAB) $(LDCUDA)

# Task binaries: full RELRO and immediate binding, so no function pointer the dynamic linker
# filled in (libc's, the CUDA runtime's) can be rewritten at run time by the code under test.
TASK_LDFLAGS := -Xlinker -z,relro,-z,now

# $(1) = L/T ; $(2) = exercises | solutions ; $(3) = its build directory ; $(4) = obj | obj-ex ;
# $(5) = the library
define TASK_RULES
$(3)/$(2)/$(1): $(BUILD)/$(4)/lessons/$(1)_harness.o $(3)/obj/$(2)/$(1).o \
                    $(call lesson_support,$(patsubst %/,%,$(dir $(1))),$(4)) $(5)
	@mkdir -p $$(@D)
	$$(call quiet,LINK,$$@)$(NVCC) $(GENCODE) $(TASK_LDFLAGS) -o $$@ $$^ $(LDCUDA) $$(EXTRA_LDFLAGS)
endef
$(foreach t,$(TASKS),$(eval $(call TASK_RULES,$(t),exercises,$(EXBUILD),obj-ex,$(LIBLAB_EX))) \
                     $(eval $(call TASK_RULES,$(t),solutions,$(BUILD),obj,$(LIBLAB))))

# What an exercise's build takes from the course's build (its harness, the lesson's support,
# the library) is brought up to date with the reference, which the grader builds outside the
# sandbox: a student's build in the sandbox cannot write the course's build, so a harness or
# library changed since the last `make` would fail every student's build.
define EXERCISE_PREREQS
$(BUILD)/solutions/$(1): | $(BUILD)/obj-ex/lessons/$(1)_harness.o \
                           $(call lesson_support,$(patsubst %/,%,$(dir $(1))),obj-ex) $(LIBLAB_EX)
endef
$(foreach t,$(TASKS),$(eval $(call EXERCISE_PREREQS,$(t))))

# ---------------------------------------------------------------- grader
# Six wings over util; the include path of each says whom it may see, so a wrong-way include
# does not compile: front ends (main, class, tui) -> export -> profile -> engine -> util.
# remote (a student's runs in a Slurm job) sees the engine and class's Slurm calls (slurm.h);
# only main sees remote: it hands the TUI its grading function through grader_opts.
# The engine has floors of its own, each a folder seeing only the floors below it:
# grade (the grading pipeline) -> model (the course and results model) -> contain (student
# code's containment, which knows nothing of the course model).
ENGINE_FLOORS := engine/grade engine/model engine/contain
GRADER_WINGS := util $(ENGINE_FLOORS) profile export class remote tui
GRADER_SRC := $(wildcard grader/*.c $(patsubst %,grader/%/*.c,$(GRADER_WINGS)))
GRADER_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(GRADER_SRC))
GRADER     := $(if $(GRADER_SRC),$(BUILD)/grader/grader)
grader_inc = $(patsubst %,-Igrader/%,$(1))
$(BUILD)/obj/grader/util/%.o:   LESSON_INC := $(call grader_inc,util)
$(BUILD)/obj/grader/engine/contain/%.o: LESSON_INC := $(call grader_inc,engine/contain util)
$(BUILD)/obj/grader/engine/model/%.o: LESSON_INC := $(call grader_inc,engine/model engine/contain util)
$(BUILD)/obj/grader/engine/grade/%.o: LESSON_INC := $(call grader_inc,$(ENGINE_FLOORS) util)
$(BUILD)/obj/grader/profile/%.o: LESSON_INC := $(call grader_inc,profile $(ENGINE_FLOORS) util)
$(BUILD)/obj/grader/export/%.o: LESSON_INC := $(call grader_inc,export profile $(ENGINE_FLOORS) util)
$(BUILD)/obj/grader/class/%.o:  LESSON_INC := $(call grader_inc,class export profile $(ENGINE_FLOORS) util)
$(BUILD)/obj/grader/remote/%.o: LESSON_INC := $(call grader_inc,remote class $(ENGINE_FLOORS) util)
$(BUILD)/obj/grader/tui/%.o:    LESSON_INC := $(call grader_inc,tui profile $(ENGINE_FLOORS) util)
# The front door (main and the files of its command line) sees every wing; it is the program,
# not the library.
GRADER_FRONT := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard grader/*.c))
$(GRADER_FRONT): LESSON_INC := $(call grader_inc,$(GRADER_WINGS))
$(BUILD)/obj/tests/%.o:         LESSON_INC := $(call grader_inc,$(GRADER_WINGS))
# Everything but the front door, as a library the unit tests link too.
LIBGRADER  := $(BUILD)/grader/libgrader.a
$(LIBGRADER): $(filter-out $(GRADER_FRONT),$(GRADER_OBJ))
	@mkdir -p $(@D)
	$(call quiet,AR,$@)rm -f $@; ar rcs $@ $^
$(BUILD)/grader/grader: $(GRADER_FRONT) $(LIBGRADER) $(LIBLAB_HOST)
	@mkdir -p $(@D)
	$(call quiet,LINK,$@)$(CC) -o $@ $^ $(LDLIBS_GRADER)

# ---------------------------------------------------------------- unit tests
UNIT_SRC  := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRC))
# A unit test links the grader's library (the modules it tests are pulled from it).
$(BUILD)/tests/unit/%: $(BUILD)/obj/tests/unit/%.o $(LIBGRADER) $(LIBLAB_HOST)
	@mkdir -p $(@D)
	$(call quiet,LINK,$@)$(CC) -o $@ $< $(LIBGRADER) $(LIBLAB_HOST) -lcmocka $(LDLIBS_GRADER)

-include $(wildcard tests/*/tests.mk)
-include tools/notes/notes.mk

# ---------------------------------------------------------------- top-level targets
# The top-level targets build in parallel on every core unless told otherwise (JOBS=1).
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
SUBMAKE = $(MAKE) --no-print-directory -j$(JOBS)
ALL := $(LIBLAB) $(LIBLAB_EX) $(LIBLAB_HOST) $(DEMOS) $(DEBUG_PROGS) $(TASK_BINS) $(GRADER)

.PHONY: all deps run test bench check-lab resources clean list-tasks notes new-task
all: $(ALL)

deps:
	$(Q)tools/install-deps.sh

run: deps
	$(Q)$(SUBMAKE) -s all
	$(Q)tools/run-main.sh $(GRADER_ARGS)

# make test T="gpu/ grader/" runs only the test groups whose names contain one of the words;
# TEST_JOBS=N groups at once (default the cores). Everything a group runs is built first, the
# notes renderer too, so that no group writes into the tree while another hashes it.
test: deps
	$(Q)$(SUBMAKE) all $(UNIT_BINS) $(TEST_BINS) $(NOTES_BIN)
	$(Q)tests/run.sh $(T)

bench: deps
	$(Q)$(SUBMAKE) $(DEMOS)
	$(Q)tools/bench.sh $(LESSONS) || [ $$? -eq 77 ]

check-lab: deps
	$(Q)$(SUBMAKE) $(TASK_BINS)
	$(Q)tools/check-lab.sh $(TASKS) || [ $$? -eq 77 ]

# The seed lectures' "look at the PTX", today: what ptxas gave every kernel.
resources: $(FLAGS_FILE)
	$(Q)tools/resources.sh "$(NVCC) $(NVCCFLAGS)" $(BUILD)/resources.txt

list-tasks:
	@printf '%s\n' $(TASKS)

# A new lesson with one graded task, every file the course expects (CONTRIBUTING.md).
new-task:
	$(Q)tools/new-task.sh $(if $(TITLE),--title "$(TITLE)") $(LESSON) $(TASK)

clean:
	rm -rf $(BUILD)

# Every file under directory $(1) whose path matches $(2); make's own globbing, no process.
files_under = $(foreach e,$(wildcard $(1)/*),$(filter $(2),$(e)) $(call files_under,$(e),$(2)))
-include $(foreach d,$(sort $(BUILD)/obj $(BUILD)/obj-ex $(EXBUILD)/obj),$(call files_under,$(d),%.d))
