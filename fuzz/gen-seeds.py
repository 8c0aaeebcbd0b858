#!/usr/bin/env python3
"""Writes the seed corpus of every fuzz target into fuzz/corpus/<target>/.

The seeds are small valid inputs (and a few broken ones) built here from
scratch, in the input format each body of fuzz/harness.rs reads; files that
coverage-guided runs add later sit beside them. Deterministic: running it
again rewrites the same bytes. Needs only the Python standard library,
plus numcodecs (the test venv has it) for the zstd, lz4 and blosc seeds.

Usage: python3 fuzz/gen-seeds.py
"""
import bz2
import gzip
import io
import json
import os
import struct
import zipfile
import zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")

# Must match TREE_KEYS in fuzz/harness.rs (the byte that picks a key is an index).
TREE_KEYS = [
    ".zgroup", ".zattrs", ".zmetadata", ".nczgroup", ".nczattr", "zarr.json",
    "v/.zarray", "v/.zattrs", "v/.nczarray", "v/.nczattr", "v/zarr.json",
    "v/0", "v/1", "v/0.0", "v/0/0", "v/c/0", "v/c/0/0", "v/c.0.0",
    "g/.zgroup", "g/.zattrs", "g/zarr.json", "g/w/.zarray", "g/w/.zattrs",
    "g/w/zarr.json", "g/w/0", "g/w/c/0", "g/w/0.0",
]
CODECS = ["zlib", "gzip", "bz2", "zstd", "lz4", "blosc", "shuffle", "fletcher32", "delta", "crc32", "adler32"]


def tree(*entries):
    out = b""
    for key, content in entries:
        if isinstance(content, (dict, list)):
            content = json.dumps(content).encode()
        elif isinstance(content, str):
            content = content.encode()
        out += bytes([TREE_KEYS.index(key)]) + struct.pack("<H", len(content)) + content
    return out


def write(target, name, data):
    d = os.path.join(ROOT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def ints(*v, fmt="<i"):
    return b"".join(struct.pack(fmt, x) for x in v)


def metadata_seeds():
    zarray = {"zarr_format": 2, "shape": [6], "chunks": [3], "dtype": "<i4", "fill_value": 0,
              "order": "C", "compressor": None, "filters": None}
    write("metadata", "v2-pure", tree(
        (".zgroup", {"zarr_format": 2}), (".zattrs", {"title": "t", "n": [1, 2]}),
        ("v/.zarray", zarray), ("v/.zattrs", {"_ARRAY_DIMENSIONS": ["x"], "units": "m"}),
        ("v/0", ints(1, 2, 3)), ("v/1", ints(4, 5, 6))))
    z2 = dict(zarray, shape=[4, 4], chunks=[2, 2], dtype="<f8", fill_value="NaN",
              compressor={"id": "zlib", "level": 1})
    write("metadata", "v2-zlib-2d", tree(
        (".zgroup", {"zarr_format": 2}), ("v/.zarray", z2),
        ("v/.zattrs", {"_ARRAY_DIMENSIONS": ["y", "x"]}),
        ("v/0.0", zlib.compress(struct.pack("<4d", 1, 2, 3, 4)))))
    write("metadata", "nczarr-v2", tree(
        (".zgroup", {"zarr_format": 2, "_nczarr_superblock": {"version": "2.0.0"},
                     "_nczarr_group": {"dims": {"x": 6}, "vars": ["v"], "groups": ["g"]}}),
        (".zattrs", {"history": "h", "_nczarr_attrs": {"types": {"history": "|S1"}}}),
        ("v/.zarray", dict(zarray, dimension_separator="/",
                           _nczarr_array={"dimrefs": ["/x"], "storage": "chunked"})),
        ("v/.zattrs", {"_nczarr_attrs": {"types": {}}}), ("v/0", ints(7, 8, 9)),
        ("g/.zgroup", {"zarr_format": 2, "_nczarr_group": {"dims": {}, "vars": ["w"], "groups": []}}),
        ("g/w/.zarray", dict(zarray, shape=[], chunks=[], _nczarr_array={"dimrefs": [], "storage": "scalar"})),
        ("g/w/0", ints(42))))
    write("metadata", "consolidated", tree(
        (".zgroup", {"zarr_format": 2}),
        (".zmetadata", {"zarr_consolidated_format": 1, "metadata": {
            ".zgroup": {"zarr_format": 2}, "v/.zarray": zarray,
            "v/.zattrs": {"_ARRAY_DIMENSIONS": ["x"]}}}),
        ("v/0", ints(1, 2, 3))))
    write("metadata", "v3", tree(
        ("zarr.json", {"zarr_format": 3, "node_type": "group", "attributes": {"a": 1}}),
        ("v/zarr.json", {"zarr_format": 3, "node_type": "array", "shape": [6], "data_type": "int32",
                         "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [3]}},
                         "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
                         "fill_value": 0, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
                         "dimension_names": ["x"], "attributes": {}}),
        ("v/c/0", ints(1, 2, 3))))
    write("metadata", "hostile-names", tree(
        (".zgroup", {"zarr_format": 2}), (".zattrs", {"a" * 3000: 1, "NaN": "x"}),
        ("v/.zarray", zarray), ("v/.zattrs", '{"_ARRAY_DIMENSIONS": ["' + "d" * 400 + '"], "x": NaN}')))
    write("metadata", "broken-json", tree((".zgroup", '{"zarr_format": 2'), ("v/.zarray", "[[[[[[")))


def zip_seeds():
    def archive(files):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
            for name, content in files:
                info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
                z.writestr(info, content)
        return buf.getvalue()
    zarray = {"zarr_format": 2, "shape": [6], "chunks": [3], "dtype": "<i4", "fill_value": 0,
              "order": "C", "compressor": None, "filters": None}
    files = [(".zgroup", json.dumps({"zarr_format": 2})),
             ("v/.zarray", json.dumps(zarray)),
             ("v/.zattrs", json.dumps({"_ARRAY_DIMENSIONS": ["x"]})),
             ("v/0", ints(1, 2, 3)), ("v/1", ints(4, 5, 6))]
    good = archive(files)
    write("zip", "stored", good)
    write("zip", "truncated", good[: len(good) // 2])
    write("zip", "empty", archive([]))


def codec_seeds():
    raw = ints(*range(64))
    try:
        import numcodecs
        extra = {"zstd": numcodecs.Zstd(level=1).encode(raw), "lz4": numcodecs.LZ4().encode(raw),
                 "blosc": numcodecs.Blosc(cname="lz4", clevel=5, shuffle=1).encode(raw)}
    except ImportError:
        extra = {}
    samples = {"zlib": zlib.compress(raw), "gzip": gzip.compress(raw, mtime=0), "bz2": bz2.compress(raw),
               "shuffle": raw, "fletcher32": raw + b"\0\0\0\0", "delta": raw,
               "crc32": raw + struct.pack("<I", zlib.crc32(raw)),
               "adler32": raw + struct.pack("<I", zlib.adler32(raw))}
    samples.update(extra)
    for name, data in sorted(samples.items()):
        write("codec", name, bytes([CODECS.index(name), 2]) + data)
        write("codec", name + "-cut", bytes([CODECS.index(name), 2]) + data[: len(data) // 2])


def url_seeds():
    for i, u in enumerate([
        "file:///tmp/x.zarr#mode=nczarr,file", "/tmp/x.zarr", "x.zarr#mode=zarr,file",
        "s3://bucket/key#mode=nczarr", "https://bucket.s3.us-west-2.amazonaws.com/key#mode=nczarr,s3",
        "http://127.0.0.1:7480/b/k#mode=zarr,s3&log", "file:///a.zip#mode=nczarr,zip",
        "file:///x#zarr&mode=file", "#mode=", "file://%zz#mode=nczar,fiel", "dap4://h/p?x=1#y",
    ]):
        write("url", f"u{i:02}", u.encode())


def api_seeds():
    write("api", "define-write-read", bytes([0, 2, 5, 0, 1, 0, 4, 1, 2, 0, 0, 0, 4, 0, 3, 0,
                                             5, 0, 0, 0, 6, 1, 1, 2, 10, 0, 0, 0, 11, 0, 0, 0, 5, 0, 0, 0]))
    write("api", "chunks-deflate", bytes([0, 2, 7, 0, 1, 0, 2, 2, 7, 0, 3, 0, 8, 0, 1, 5, 2, 0, 0, 0,
                                          4, 0, 9, 0, 11, 0, 0, 0, 3, 0, 0, 0, 9, 0, 1, 0, 2, 0, 0, 0]))
    write("api", "unlimited", bytes([0, 2, 0, 0, 1, 1, 0, 1, 2, 0, 0, 0, 4, 0, 1, 0, 5, 0, 0, 0]))


if __name__ == "__main__":
    metadata_seeds()
    zip_seeds()
    codec_seeds()
    url_seeds()
    api_seeds()
