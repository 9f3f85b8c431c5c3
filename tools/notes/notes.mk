# make notes: every lesson's README.md as HTML in build/notes/ (one page per lesson and an
# index), through md4c's HTML renderer (Debian: libmd4c-html0-dev), with each lesson's figures
# copied beside its page. Included from the top-level Makefile.
#   make notes                       -> build/notes/index.html, build/notes/<lesson>/index.html
#   make notes NOTES_OUT=DIR         -> the same into DIR (the notes tests use this)

NOTES_BIN  := $(BUILD)/tools/notes/notes-html
NOTES_OBJ  := $(BUILD)/obj/tools/notes/notes.o $(BUILD)/obj/tools/notes/post.o
NOTES_OUT  ?= $(BUILD)/notes
NOTES_MD   := $(sort $(wildcard lessons/*/README.md))
NOTES_FIGS := $(wildcard lessons/*/figures/*.svg lessons/*/figures/*.png lessons/*/*.svg)

$(NOTES_BIN): $(NOTES_OBJ)
	@mkdir -p $(@D)
	$(call quiet,LINK,$@)$(CC) -o $@ $^ -lmd4c-html

# Rendered afresh every time (it takes milliseconds), so a removed figure does not linger.
.PHONY: notes
notes: $(NOTES_BIN)
	$(Q)rm -rf '$(NOTES_OUT)'
	$(call quiet,NOTES,$(NOTES_OUT))$(NOTES_BIN) '$(NOTES_OUT)' $(NOTES_MD)
	$(Q)for f in $(NOTES_FIGS); do d='$(NOTES_OUT)'/$${f#lessons/}; mkdir -p "$${d%/*}"; cp "$$f" "$$d"; done
