#!/bin/sh
# setup-deps.sh: installs the Debian packages tracecost needs, and only those that are missing.
# Usage: scripts/setup-deps.sh [--check] [base] [test] [speed] [mpi] [browser] [fuzz]
#   --check  install nothing: name the missing packages and the command that installs them, and
#            exit 1 when any is missing (what plain `make` runs; `make deps` installs); quiet when
#            none is (make runs it behind every build, rarely: its stamps are build/.deps-*)
#   base    gcc make libc6-dev libyajl-dev zlib1g-dev pkg-config (always needed)
#   test    libcriterion-dev yajl-tools man-db groff-base bsdutils time python3 (make test, make bench)
#   speed   libisal-dev                              (fast gzip inflate; optional)
#   mpi     libopenmpi-dev openmpi-bin               (make mpi)
#   browser chromium                                 (HTML report rendering test)
#   fuzz    clang libclang-rt-dev valgrind           (make fuzz, make fuzz-run, make valgrind)
# Says what it installs, or that every package is there; never downloads anything but Debian packages.
set -eu
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
groups="${*:-base}"
want=""
for g in $groups; do
  case "$g" in
    base)    want="$want gcc make libc6-dev libyajl-dev zlib1g-dev pkg-config" ;;
    test)    want="$want libcriterion-dev yajl-tools man-db groff-base bsdutils time python3" ;;
    speed)   want="$want libisal-dev" ;;
    mpi)     want="$want libopenmpi-dev openmpi-bin" ;;
    browser) want="$want chromium" ;;
    fuzz)    want="$want clang libclang-rt-dev valgrind" ;;
    *) echo "setup-deps: unknown group '$g'" >&2; exit 1 ;;
  esac
done
missing=""
for p in $want; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done
if [ -z "$missing" ]; then
  [ "$check" = 1 ] || echo "setup-deps: every package for $groups is installed; nothing to do" >&2
  exit 0
fi
if [ "$check" = 1 ]; then
  echo "setup-deps: missing Debian packages:$missing" >&2
  echo "setup-deps: install them with: sh scripts/setup-deps.sh $groups   (or: make deps; make test-deps)" >&2
  exit 1
fi
echo "setup-deps: installing missing Debian packages:$missing" >&2
SUDO=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
    echo "setup-deps: not root and no sudo; please install:$missing" >&2; exit 1; fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >&2
echo "setup-deps: done" >&2
