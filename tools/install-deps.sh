#!/usr/bin/env bash
# The lab's one install step (make deps; make run and make test call it first).
# Checks what the build needs by compiling against it, so headers found through CPATH or a
# non-Debian prefix count as present. Installs what is missing with apt-get when run as root;
# otherwise prints the one command to run and fails. LAB_NO_INSTALL=1: check only, install
# nothing (a machine without a package registry).
#
#   required  libncurses-dev libinih-dev libcjson-dev libcmocka-dev libmd4c-dev libmd4c-html0-dev
#             libelf-dev libdw-dev nettle-dev libseccomp-dev
#             bubblewrap (Debian/Ubuntu names; md4c renders the lecture notes in the grader's
#             pager and as HTML with make notes; bubblewrap is the grader's sandbox)
#   optional  gnuplot-nox (figures), tmux (TUI tests), chromium-headless-shell (the notes'
#             browser test; a full chromium serves too)
# Never Slurm or munge: they are system services (Debian enables them at boot). Only the class
# Slurm test installs them, and leaves none enabled (tests/class/test_class_slurm.sh).
set -u
case ${1:-} in -h|--help) echo 'usage: tools/install-deps.sh   check the build'\''s libraries; as root install what is missing (LAB_NO_INSTALL=1: check only)'; exit 0 ;; esac
cc=${CC:-gcc}

have_lib() { # header library-flags...
  local header=$1; shift
  printf '#include <%s>\nint main(void){return 0;}\n' "$header" |
    $cc -x c - -o /dev/null "$@" >/dev/null 2>&1
}
have_cmocka() {
  printf '#include <stdarg.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <setjmp.h>\n#include <cmocka.h>\nint main(void){return 0;}\n' |
    $cc -x c - -o /dev/null -lcmocka >/dev/null 2>&1
}

missing=()
# ncurses as the Makefile links it (see LDLIBS_GRADER)
have_lib curses.h -l:libncursesw.so.6 -l:libtinfo.so.6 || missing+=(libncurses-dev)
have_lib ini.h -linih        || missing+=(libinih-dev)
have_lib cjson/cJSON.h -lcjson || missing+=(libcjson-dev)
have_cmocka               || missing+=(libcmocka-dev)
have_lib md4c.h -lmd4c       || missing+=(libmd4c-dev)        # the notes in the grader's pager
have_lib gelf.h -lelf        || missing+=(libelf-dev)         # the object check reads ELF
have_lib elfutils/libdw.h -ldw || missing+=(libdw-dev)         # and its line table
have_lib md4c-html.h -lmd4c-html || missing+=(libmd4c-html0-dev)
have_lib nettle/sha2.h -lnettle || missing+=(nettle-dev)       # SHA-256 of binaries and trees
have_lib seccomp.h -lseccomp || missing+=(libseccomp-dev)     # a task's program: one process
bwrap --version >/dev/null 2>&1 || missing+=(bubblewrap)

optional=()
command -v gnuplot >/dev/null || optional+=(gnuplot-nox)
command -v tmux >/dev/null    || optional+=(tmux)
command -v chromium-headless-shell >/dev/null || command -v chromium >/dev/null || optional+=(chromium-headless-shell)

[ ${#missing[@]} -eq 0 ] && [ ${#optional[@]} -eq 0 ] && exit 0

# apt's own lines are shown (a slow mirror or a held package is then visible), one per package
apt_install() {
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"
}

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null || [ -n "${LAB_NO_INSTALL:-}" ]; then
  if [ ${#missing[@]} -gt 0 ]; then
    echo "deps: missing ${missing[*]}; install them with:" >&2
    echo "  sudo apt-get install -y ${missing[*]} ${optional[*]}" >&2
    exit 1
  fi
  echo "deps: optional packages not installed: ${optional[*]} (sudo apt-get install -y ${optional[*]})" >&2
  exit 0
fi

echo "deps: installing ${missing[*]} ${optional[*]}"
apt-get update -q || echo "deps: apt-get update failed (above); trying the install anyway" >&2
if [ ${#missing[@]} -gt 0 ] && ! apt_install "${missing[@]}"; then
  echo "deps: apt-get install ${missing[*]} failed (its lines are above)" >&2
  exit 1
fi
for p in "${optional[@]}"; do
  apt_install "$p" || echo "deps: optional package $p could not be installed; what needs it will SKIP" >&2
done
exit 0
