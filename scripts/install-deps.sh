#!/usr/bin/env bash
# Installs the Debian packages Steward builds and tests with (clang, libFuzzer and llvm-symbolizer
# for scripts/fuzz.sh). Safe to run again.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config
  # Build speed: lld links the test programs in a fraction of GNU ld's time; ccache makes
  # rebuilding unchanged sources nearly free (CMakeLists.txt uses both when present).
  lld ccache
  libsqlite3-dev libsqlitecpp-dev
  nlohmann-json3-dev libvalijson-dev
  # JSON read on the hot path: simdjson parses, then builds nlohmann's type, the project's one.
  libsimdjson-dev
  qt6-base-dev qt6-httpserver-dev qt6-websockets-dev libgl-dev
  qtkeychain-qt6-dev
  fonts-dejavu-core
  # The results grid's .xlsx export, and unzip to read such files back in tests.
  libxlsxwriter-dev unzip
  # The submission report test reads its PDF back (pdfinfo, pdftotext, pdftoppm).
  poppler-utils
  # Spreadsheet import: minizip opens the .xlsx zip container (its XML parts are read with
  # QXmlStreamReader). Not QuaZip: it exports its own zipOpen3 & co., which libxlsxwriter's calls
  # into the system minizip then reach, and the .xlsx export crashes in any program with both.
  libminizip-dev
  # Stored document text: zstd with a dictionary trained per resource makes a document about a sixth
  # of its size (zstd alone does not halve one of a few hundred bytes).
  libzstd-dev
  # A sync's HTTP requests: libcurl's multi interface carries many at once for a few system calls
  # each; QNetworkAccessManager spent more CPU a request than the rest of a pushed document.
  libcurl4-openssl-dev
  # serve over TLS: libcrypto checks a certificate against its key before serving; the openssl
  # program makes the certificates the TLS tests use (they skip without it).
  libssl-dev openssl
  # The programs allocate with mimalloc (an import frees on one thread what another allocated).
  libmimalloc-dev
  # Packaging: dpkg-shlibdeps for the .deb's Depends, PNG icons rendered from the SVG, and the
  # validators tst_package runs on the desktop entry and AppStream metadata.
  dpkg-dev file librsvg2-bin desktop-file-utils appstream
  # scripts/code-size.sh measures functions with Universal Ctags (its end: field).
  universal-ctags
  # Fuzzing (scripts/fuzz.sh): clang with libFuzzer and the sanitizers, llvm-symbolizer.
  clang-14 libclang-rt-14-dev llvm-14
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
echo "Installing: ${missing[*]}" >&2
$sudo apt-get update
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
