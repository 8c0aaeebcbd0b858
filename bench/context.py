"""Context runs for bench/run.py: the W1 workloads through zarr-python with the
zarrs codec pipeline or its own, and through tensorstore, on Zarr v2 stores of the same
shape, chunks, codecs and values as ncbench.c writes; the W4 workloads on Zarr
v3 with sharding.

    context.py w1write ENGINE STORE CODEC NZ NY NX CZ CY CX
    context.py w1read  ENGINE STORE MODE  NZ NY NX NRANDOM
    context.py w4write ENGINE STORE CODEC NZ NY NX CZ CY CX SZ SY SX
    context.py w4read  ENGINE ARRAY MODE  NZ NY NX NRANDOM
    context.py delete  STORE

w4write writes a Zarr v3 group at STORE with the array `field` (as ncbench's
dataset has it): shards of SZ x SY x SX, inner chunks CZ x CY x CX
(`sharding_indexed`, index at the end with crc32c, as zarr-python writes it),
codecs none or zstd level 1; tensorstore writes the array alone (it writes no
groups). w4read reads the Zarr v3 array at ARRAY (a store's `field`).
delete removes every object of an S3 store (tensorstore's S3 kvstore).

ENGINE: zarrs (zarr-python with the zarrs codec pipeline) | zarrs-obstore |
zarr-obstore (zarr-python with its own codec pipeline, BatchedCodecPipeline) |
tensorstore. STORE: a local directory, or s3://bucket/key (then S3_ENDPOINT and
the AWS_* variables name the server; zarrs goes through s3fs, the *-obstore
engines through zarr.storage.ObjectStore over obstore's S3Store). tensorstore's
file kvstore syncs what it writes (file_io_sync, its default, set explicitly). Prints one line as ncbench does:
RESULT {"wall":..,"user":..,"sys":..,"rss_kib":..,"bytes":..,"status":..}.
Reads into a buffer already touched where the engine allows it (zarr-python's
out=); tensorstore always allocates its result, so its reads include first touch
("alloc" in the status).
"""

import json
import os
import resource
import sys
import time

import numpy as np

M1 = np.uint64(0x9E3779B97F4A7C15)
M2 = np.uint64(0xBF58476D1CE4E5B9)
M3 = np.uint64(0x94D049BB133111EB)


def mix(x):
    x = x + M1
    x = (x ^ (x >> np.uint64(30))) * M2
    x = (x ^ (x >> np.uint64(27))) * M3
    return x ^ (x >> np.uint64(31))


def field(nz, ny, nx, z0=0, z1=None):
    """The W1 field of ncbench.c for planes z0..z1, bit for bit."""
    z1 = nz if z1 is None else z1
    tz = (20.0 * np.sin(np.arange(nz) * 0.031)).astype(np.float32)
    ty = (8.0 * np.cos(np.arange(ny) * 0.0123)).astype(np.float32)
    tx = (5.0 * np.sin(np.arange(nx) * 0.0171 + 1.0)).astype(np.float32)
    out = np.empty((z1 - z0, ny, nx), np.float32)
    yx = (np.arange(ny, dtype=np.uint64)[:, None] * np.uint64(nx)) + np.arange(nx, dtype=np.uint64)[None, :]
    base = (
        (ty[:, None] * tx[None, :] * np.float32(0.25)).astype(np.float32),
        ty[:, None],
        tx[None, :],
    )
    with np.errstate(over="ignore"):
        for z in range(z0, z1):
            h = mix(np.uint64(z) * np.uint64(ny * nx) + yx)
            noise = ((h >> np.uint64(40)).astype(np.float64) / 16777216.0 - 0.5).astype(np.float32)
            v = np.float32(280.0) + tz[z]
            v = v + base[0]
            v = v + base[1]
            v = v + base[2]
            v = v + noise
            out[z - z0] = np.rint(v * np.float32(64.0)) / np.float32(64.0)
    return out


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime, r.ru_stime


class Timer:
    def __enter__(self):
        self.u0, self.s0 = cpu()
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self.t0
        u, s = cpu()
        self.user, self.sys = u - self.u0, s - self.s0


def report(t, status, nbytes, buffer_bytes=0):
    rec = {
        "wall": t.wall if t else 0,
        "user": t.user if t else 0,
        "sys": t.sys if t else 0,
        "rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "bytes": nbytes,
        "buffer_kib": buffer_bytes / 1024,
        "status": status,
    }
    print("RESULT " + json.dumps(rec), flush=True)


def numcodecs_for(codec):
    import numcodecs

    if codec == "none":
        return None, None
    if codec == "zlib1+shuffle":
        return [numcodecs.Shuffle(elementsize=4)], numcodecs.Zlib(level=1)
    if codec == "zstd1":
        return None, numcodecs.Zstd(level=1)
    if codec == "blosc-lz4-1+shuffle":
        return None, numcodecs.Blosc(cname="lz4", clevel=1, shuffle=numcodecs.Blosc.SHUFFLE)
    raise SystemExit(f"unknown codec {codec}")


def zarr_store(store, engine):
    if not store.startswith("s3://"):
        return store
    import zarr.storage

    opts = {"endpoint_url": os.environ.get("S3_ENDPOINT")}
    if engine.endswith("-obstore"):
        from obstore.store import S3Store

        bucket, _, prefix = store[5:].partition("/")
        s3 = S3Store(
            bucket,
            prefix=prefix,
            endpoint=os.environ["S3_ENDPOINT"],
            region=os.environ.get("S3_REGION", "us-east-1"),
            access_key_id=os.environ.get("AWS_ACCESS_KEY_ID"),
            secret_access_key=os.environ.get("AWS_SECRET_ACCESS_KEY"),
            client_options={"allow_http": True},
            virtual_hosted_style_request=False,
        )
        return zarr.storage.ObjectStore(s3)
    return zarr.storage.FsspecStore.from_url(store, storage_options={"client_kwargs": opts, "anon": False})


def ts_spec(store, driver="zarr"):
    if store.startswith("s3://"):
        bucket, _, path = store[5:].partition("/")
        kv = {
            "driver": "s3",
            "bucket": bucket,
            "path": path.rstrip("/") + "/",
            "endpoint": os.environ.get("S3_ENDPOINT"),
            "aws_region": os.environ.get("S3_REGION", "us-east-1"),
        }
    else:
        # fsync of every file written and of its directory: tensorstore's default,
        # spelled out because the W1 durable row compares with it.
        kv = {"driver": "file", "path": store, "file_io_sync": True}
    return {"driver": driver, "kvstore": kv}


ZARR_ENGINES = ("zarrs", "zarrs-obstore", "zarr-obstore")


def setup(engine):
    if engine in ZARR_ENGINES:
        import zarr

        pipeline = "zarrs.ZarrsCodecPipeline" if engine.startswith("zarrs") else (
            "zarr.core.codec_pipeline.BatchedCodecPipeline")
        zarr.config.set({"codec_pipeline.path": pipeline})
        return zarr
    if engine != "tensorstore":
        raise SystemExit(f"unknown engine {engine}")
    import tensorstore

    return tensorstore


def w1write(engine, store, codec, n, c):
    lib = setup(engine)
    data = field(*n)
    nbytes = data.nbytes
    filters, compressor = numcodecs_for(codec)
    if engine in ZARR_ENGINES:
        zarr = lib
        with Timer() as t:
            a = zarr.create_array(
                zarr_store(store, engine),
                shape=n,
                chunks=c,
                dtype="<f4",
                zarr_format=2,
                filters=filters,
                compressors=compressor,
                fill_value=None,
                overwrite=True,
            )
            a[...] = data
        report(t, "ok", nbytes, nbytes)
    else:
        ts = lib
        if filters:
            report(None, "unsupported: tensorstore's zarr v2 driver has no filters (shuffle)", 0)
            return
        comp = compressor.get_config() if compressor else None
        if comp and comp["id"] == "zstd":
            comp = {"id": "zstd", "level": comp["level"]}
        spec = ts_spec(store)
        spec["metadata"] = {
            "shape": list(n),
            "chunks": list(c),
            "dtype": "<f4",
            "fill_value": None,
            "filters": None,
            "compressor": comp,
            "order": "C",
        }
        with Timer() as t:
            arr = ts.open(spec, create=True, delete_existing=True).result()
            arr.write(data).result()
        report(t, "ok", nbytes, nbytes)


def check(got, want):
    return "ok" if np.array_equal(got, want) else "wrong values"


def w1read(engine, store, mode, n, nrandom, driver="zarr"):
    lib = setup(engine)
    nz, ny, nx = n
    rng_pos = None
    if mode == "random":
        rng = np.random.default_rng(1)
        rng_pos = np.stack(
            [rng.integers(0, nz, nrandom), rng.integers(0, ny - 15, nrandom), rng.integers(0, nx - 15, nrandom)], 1
        )
    sel = {
        "full": (slice(None),) * 3,
        "full-alloc": (slice(None),) * 3,
        "slab": (slice(None), slice(500, 524), slice(None)),
    }.get(mode)
    if engine in ZARR_ENGINES:
        zarr = lib
        from zarr.core.buffer import default_buffer_prototype

        proto = default_buffer_prototype()
        if mode in ("full", "slab"):
            shape = (nz, ny, nx) if mode == "full" else (nz, 24, nx)
            buf = np.full(shape, -1, np.float32)
            out = proto.nd_buffer.from_numpy_array(buf)
            with Timer() as t:
                a = zarr.open_array(zarr_store(store, engine), mode="r")
                a.get_basic_selection(sel, out=out)
            status = check(buf[:, :8], field(nz, ny, nx)[:, sel[1]][:, :8]) if mode == "slab" else "ok"
            if mode == "full":
                status = check(buf[:2], field(nz, ny, nx, 0, 2))
            report(t, status, buf.nbytes, buf.nbytes)
        elif mode == "full-alloc":
            with Timer() as t:
                a = zarr.open_array(zarr_store(store, engine), mode="r")
                got = a[...]
            report(t, check(got[:2], field(nz, ny, nx, 0, 2)), got.nbytes)
        else:
            with Timer() as t:
                a = zarr.open_array(zarr_store(store, engine), mode="r")
                for z, y, x in rng_pos:
                    a[z, y : y + 16, x : x + 16]
            report(t, "ok", nrandom * 1024)
    else:
        ts = lib
        with Timer() as t:
            a = ts.open(ts_spec(store, driver), open=True).result()
            if mode == "random":
                for z, y, x in rng_pos:
                    a[z, y : y + 16, x : x + 16].read().result()
                got = None
            else:
                got = a[sel].read().result()
        if got is None:
            report(t, "ok (alloc)", nrandom * 1024)
        elif mode == "slab":
            report(t, check(got[:2], field(nz, ny, nx, 0, 2)[:, 500:524]) + " (alloc)", got.nbytes)
        else:
            report(t, check(got[:2], field(nz, ny, nx, 0, 2)) + " (alloc)", got.nbytes)


def w4write(engine, store, codec, n, c, s):
    """The W1 field as a sharded Zarr v3 array `field` (see the module's doc)."""
    if codec not in ("none", "zstd1"):
        raise SystemExit(f"W4 codec {codec}: none or zstd1")
    lib = setup(engine)
    data = field(*n)
    nbytes = data.nbytes
    if engine in ZARR_ENGINES:
        zarr = lib
        from zarr.codecs import ZstdCodec

        comp = ZstdCodec(level=1) if codec == "zstd1" else None
        with Timer() as t:
            root = zarr.open_group(zarr_store(store, engine), mode="w", zarr_format=3)
            a = root.create_array(
                "field",
                shape=n,
                chunks=c,
                shards=s,
                dtype="<f4",
                compressors=comp,
                fill_value=0,
                dimension_names=("z", "y", "x"),
            )
            a[...] = data
        report(t, "ok", nbytes, nbytes)
    else:
        ts = lib
        inner = [{"name": "bytes", "configuration": {"endian": "little"}}]
        if codec == "zstd1":
            inner.append({"name": "zstd", "configuration": {"level": 1}})
        spec = ts_spec(store.rstrip("/") + "/field", "zarr3")
        spec["metadata"] = {
            "shape": list(n),
            "data_type": "float32",
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(s)}},
            "chunk_key_encoding": {"name": "default"},
            "fill_value": 0,
            "codecs": [
                {
                    "name": "sharding_indexed",
                    "configuration": {
                        "chunk_shape": list(c),
                        "codecs": inner,
                        "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
                        "index_location": "end",
                    },
                }
            ],
            "dimension_names": ["z", "y", "x"],
        }
        with Timer() as t:
            arr = ts.open(spec, create=True, delete_existing=True).result()
            arr.write(data).result()
        report(t, "ok", nbytes, nbytes)


def delete(store):
    """Remove every object of an S3 store (untimed housekeeping of the runner)."""
    import tensorstore as ts

    kv = ts.KvStore.open(ts_spec(store)["kvstore"]).result()
    kv.delete_range(ts.KvStore.KeyRange()).result()
    left = kv.list().result()
    report(None, "ok" if not left else f"{len(left)} objects left", 0)


def rawget(store):
    """The server's raw parallel-GET rate: every object under the store's prefix,
    all requested at once through tensorstore's S3 kvstore (no decoding)."""
    import tensorstore as ts

    spec = ts_spec(store)["kvstore"]
    kv = ts.KvStore.open(spec).result()
    keys = [k for k in kv.list().result()]
    if not keys:
        report(None, "no objects under the store's prefix", 0)
        return
    with Timer() as t:
        futs = [kv.read(k) for k in keys]
        total = sum(len(f.result().value) for f in futs)
    report(t, f"ok ({len(keys)} objects)", total)


def main(argv):
    try:
        if argv[1] == "rawget":
            rawget(argv[2])
        elif argv[1] == "w1write":
            engine, store, codec = argv[2:5]
            n = tuple(int(v) for v in argv[5:8])
            c = tuple(int(v) for v in argv[8:11])
            w1write(engine, store, codec, n, c)
        elif argv[1] in ("w1read", "w4read"):
            engine, store, mode = argv[2:5]
            n = tuple(int(v) for v in argv[5:8])
            w1read(engine, store, mode, n, int(argv[8]), "zarr3" if argv[1] == "w4read" else "zarr")
        elif argv[1] == "w4write":
            engine, store, codec = argv[2:5]
            n, c, s = (tuple(int(v) for v in argv[i : i + 3]) for i in (5, 8, 11))
            w4write(engine, store, codec, n, c, s)
        elif argv[1] == "delete":
            delete(argv[2])
        else:
            raise SystemExit(__doc__)
    except ImportError as e:
        report(None, f"not installed: {e.name}", 0)
    except Exception as e:  # reported as the run's status, never a traceback in the table
        msg = f"{type(e).__name__}: {e}".replace("\n", " ")[:160]
        report(None, msg, 0)


if __name__ == "__main__":
    main(sys.argv)
    # The result is out and every write was waited for: leave without the
    # interpreter's teardown. zarr-python writing through obstore aborts there
    # now and then (SIGABRT, no Python frame; 1 to 2 runs in 10 here, zarr
    # 3.1.6, obstore 0.12.1), which would turn a finished run into a failed one.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
