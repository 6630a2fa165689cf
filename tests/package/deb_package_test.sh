#!/usr/bin/env bash
# Builds the .deb (cpack), unpacks it into a scratch root (dpkg -x: no root,
# nothing installed on the system) and uses it from outside the build tree,
# as a user would:
#   deb_package_test.sh BUILD_DIR CONSUMER_SOURCE_DIR INSTALLED_DEMO_TEST
# Run inside a virtual X server (with_xvfb.sh): the demo game and the viewer
# draw with OpenGL.
set -euo pipefail
build=$1 consumer=$2 demo_test=$3
scratch="$(mktemp -d "${TMPDIR:-/tmp}/memframe-deb.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
fail() { echo "deb_package_test: $*" >&2; exit 1; }

cpack --config "$build/CPackConfig.cmake" -B "$scratch/out" >"$scratch/cpack.log" 2>&1 ||
  { cat "$scratch/cpack.log" >&2; fail "cpack failed"; }
debs=("$scratch"/out/memframe_*.deb)
[ -f "${debs[0]}" ] || fail "cpack made no memframe_*.deb: $(ls "$scratch/out")"
deb=${debs[0]}

# dpkg-shlibdeps named the libraries the binaries link (the agent's
# libunwind, the recorder's zstd, protobuf and libdw, the viewer's GLFW).
depends="$(dpkg-deb --field "$deb" Depends)"
for lib in libc6 libstdc++6 libunwind8 libzstd1 libprotobuf libdw1 libglfw3; do
  [[ "$depends" == *"$lib"* ]] || fail "Depends lacks $lib: $depends"
done

# The man pages and completion the programs generate are in it, where man
# and bash-completion look.
contents="$(dpkg -c "$deb")"
for f in ./usr/share/man/man1/memframe.1 ./usr/share/man/man1/memframe-run.1 ./usr/share/man/man1/memframe-report.1 \
         ./usr/share/man/man1/memframe-viewer.1 ./usr/share/bash-completion/completions/memframe; do
  [[ "$contents" == *" $f"* ]] || fail "dpkg -c lists no $f"
done

root="$scratch/root"
dpkg -x "$deb" "$root"
multiarch="$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)"
agent="$root/usr/lib/$multiarch/memframe/libmemframe_agent.so"
for f in usr/bin/memframe usr/bin/memframe-viewer "${agent#"$root/"}" usr/include/memframe/annotate.h \
         usr/share/pkgconfig/memframe.pc usr/share/cmake/memframe/memframeConfig.cmake \
         usr/share/doc/memframe/README.md usr/share/doc/memframe/docs/USAGE.md usr/share/doc/memframe/proto/FORMAT.md; do
  [ -e "$root/$f" ] || fail "the package lacks /$f"
done

cd "$scratch"  # nothing below runs from the build tree
unset MEMFRAME_AGENT
memframe="$root/usr/bin/memframe"

# The agent is found beside the installed binary, not in the build tree:
# without it, memframe says so.
mv "$agent" "$agent.away"
if "$memframe" run --no-summary -o missing.mfc -- /bin/true 2>missing.log; then
  fail "memframe ran without its agent"
fi
grep -q "libmemframe_agent.so" missing.log || fail "no clear message without the agent: $(cat missing.log)"
mv "$agent.away" "$agent"

MEMFRAME_INSTALLED_CLI="$memframe" "$demo_test"

"$root/usr/bin/memframe-viewer" demo.mfc --screenshot hidden.png --view hidden >viewer.log 2>&1 ||
  { cat viewer.log >&2; fail "the installed viewer failed"; }
[ -s hidden.png ] || fail "the installed viewer wrote no screenshot"

# A game's build: find_package(memframe) -> memframe::annotate ...
cmake -S "$consumer" -B consumer -DCMAKE_PREFIX_PATH="$root/usr" >consumer.log 2>&1 &&
  cmake --build consumer >>consumer.log 2>&1 || { cat consumer.log >&2; fail "find_package(memframe) build failed"; }
consumer/annotated_consumer | grep -q "annotated consumer ran" || fail "the consumer did not run"
# ... and pkg-config, with the .pc file's own location as its prefix.
cflags="$(PKG_CONFIG_PATH="$root/usr/share/pkgconfig" pkg-config --cflags --libs memframe)"
# shellcheck disable=SC2086
cc -o pc_consumer "$consumer/annotated_consumer.c" $cflags || fail "pkg-config --cflags memframe: $cflags"
echo "deb_package_test: $(basename "$deb") ok"
