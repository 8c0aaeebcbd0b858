#!/usr/bin/env bash
# What netcdf-c's own tools (ncdump, nccopy, ncgen, ncgen3) of one release
# import from libnetcdf, for releases whose binaries are not at hand (the
# client-<version>-<tool>.txt lists here): compile each tool's sources as
# netcdf-c's CMake build lists them, with a config.h for a full Linux build
# (NetCDF-4, DAP, NCZarr, plugins; no MPI; no strlcat in glibc, as on
# Debian bookworm and manylinux), and print the undefined symbols of the
# objects that neither the tool itself nor glibc defines.
#
# Usage: testdata/abi/tool-imports.sh NETCDF_C_SOURCE_DIR OUT_DIR
#   writes OUT_DIR/<tool>.txt, one symbol a line. ncgen's H5Eprint1 (it links
#   libhdf5 itself) is left out.
set -euo pipefail
src="$(cd "$1" && pwd)"
out="$2"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# config.h from config.h.cmake.in: every HAVE_/USE_/NETCDF_ENABLE_ switch on,
# except what a serial glibc build lacks.
python3 - "$src/config.h.cmake.in" >"$work/config.h" <<'EOF'
import re, sys
off = re.compile(r'^(HAVE_STRLCAT|HAVE_WINSOCK2_H|HAVE_BASETSD_H|HAVE_FILE_LENGTH_I64|HAVE_LIBJPEG|'
                 r'HAVE_LIBMFHDF|HAVE_SYS_XATTR_H|HAVE_GETFATTR|HAVE_H5.*|HAVE_LIBCURL.*|HAVE_CURL.*|'
                 r'.*MPI.*|.*PNETCDF.*|.*PARALLEL.*|.*TEST.*|USE_X_GETOPT|DLL_.*|AC_APPLE.*|CRAY.*|'
                 r'C_ALLOCA|const|WORDS_BIGENDIAN|.*BENCHMARK.*|.*LOGGING.*|USE_FFILEIO|.*ERANGE_FILL|'
                 r'USE_STRICT.*|HAVE_UCHAR|NETCDF_ENABLE_LIBXML2)$')
values = {'CHUNK_CACHE_SIZE': '16777216', 'CHUNK_CACHE_NELEMS': '4133', 'CHUNK_CACHE_PREEMPTION': '0.75',
          '_FILE_OFFSET_BITS': '64'}
for line in open(sys.argv[1]):
    line = line.rstrip('\n')
    m = re.match(r'\s*#cmakedefine\s+(\w+)(.*)', line)
    if not m:
        line = re.sub(r'\$\{\w+\}', '0', line)
        print(re.sub(r'@\w+@', '0', line))
        continue
    name, val = m.group(1), m.group(2).strip()
    if name in values:
        print(f'#define {name} {values[name]}')
    elif name.startswith('SIZEOF_'):
        print(f'#define {name} {2 if "SHORT" in name else 4 if name.endswith(("_INT", "_FLOAT", "_UINT")) else 1 if "CHAR" in name else 8}')
    elif off.match(name) or not re.match(r'(HAVE_|NETCDF_ENABLE_|USE_|ENABLE_|_LARGEFILE)', name):
        print(f'/* #undef {name} */')
    elif '${' in val or '@' in val:
        print(f'#define {name} ""' if 'DIR' in name or 'PATH' in name else f'/* #undef {name} */')
    else:
        print(f'#define {name} {val or 1}')
EOF
sed -E 's/@NC_VERSION_(MAJOR|MINOR|PATCH)@/0/; s/@[A-Za-z0-9_]+@/1/g' "$src/include/netcdf_meta.h.in" >"$work/netcdf_meta.h"
sed -E 's/@[A-Za-z0-9_]+@/5/g' "$src/include/netcdf_dispatch.h.in" >"$work/netcdf_dispatch.h"

nm -D --defined-only /lib/x86_64-linux-gnu/libc.so.6 /lib/x86_64-linux-gnu/libm.so.6 |
    awk '{print $3}' | sed 's/@.*//' | sort -u >"$work/libc"

tool() { # name dir files...
    local name=$1 dir=$2
    shift 2
    mkdir -p "$work/$name"
    for f in "$@"; do
        gcc -c -w -O0 -DHAVE_CONFIG_H -D_GNU_SOURCE -I"$work" -I"$src/include" -I"$src/$dir" \
            -o "$work/$name/${f%.c}.o" "$src/$dir/$f"
    done
    nm -u "$work/$name"/*.o | awk 'NF==2{print $2}' | sort -u >"$work/$name.undef"
    nm --defined-only "$work/$name"/*.o | awk 'NF==3{print $3}' | sort -u >"$work/$name.def"
    comm -23 "$work/$name.undef" "$work/$name.def" | comm -23 - "$work/libc" | grep -vx H5Eprint1 >"$out/$name.txt"
}
tool ncdump ncdump ncdump.c vardata.c dumplib.c indent.c nctime0.c utils.c nciter.c
tool nccopy ncdump nccopy.c nciter.c chunkspec.c utils.c dimmap.c list.c
tool ncgen ncgen bindata.c bytebuffer.c cdata.c cvt.c data.c debug.c dump.c escapes.c f77data.c genbin.c \
    genc.c genchar.c generate.c generr.c genf77.c genj.c genlib.c getfill.c jdata.c list.c main.c ncgeny.c \
    semantics.c util.c
tool ncgen3 ncgen3 main.c load.c escapes.c getfill.c init.c genlib.c ncgeny.c
wc -l "$out"/*.txt
