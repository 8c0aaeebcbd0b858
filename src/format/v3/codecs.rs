//! A Zarr v3 `codecs` list <-> the model's codec chain.
//!
//! The v3 pipeline is array->array codecs, one array->bytes codec, then
//! bytes->bytes codecs (zarr-specs `docs/v3/core/index.rst`, "Codecs"). The
//! model keeps what the v2 reader keeps: the chain of numcodecs-style JSON
//! objects (`{"id": "zstd", "level": 0}`) that the codec registry resolves,
//! plus the byte order and the string layout. So a v3 codec and its v2/HDF5
//! twin are one implementation, and `_Codecs`, `nc_inq_var_filter_*` and
//! `nc_def_var_*` see v3 arrays as they see v2 ones.
//!
//! | v3 codec | model |
//! |---|---|
//! | `bytes` {endian} | `Var::big_endian` |
//! | `vlen-utf8`, `vlen-bytes` | `StringLayout::VlenUtf8` (numcodecs' layout) |
//! | `transpose` {order} | `{"id": "transpose", "order": [...]}` (identity: nothing) |
//! | `sharding_indexed` | `Var::shards` and the inner codecs |
//! | `gzip`, `zstd`, `blosc`, `crc32c` | the numcodecs twins |
//! | `numcodecs.<id>` {configuration} | `{"id": "<id>", ...configuration}` |
//!
//! An unknown codec with `"must_understand": false` is left out (with a log
//! line); another unknown bytes->bytes codec stays in the chain by its name,
//! so that a plugin may provide it (else reads fail with NC_ENOFILTER, as for
//! v2); an unknown array->array or array->bytes codec hides the array.
#![forbid(unsafe_code)]

use serde_json::{Map, Value};

use crate::codec::sharding::{IndexCodecs, ShardLayout};
use crate::error::{NcError, NcResult};
use crate::format::json::Out;
use crate::log::Level;

/// The most codecs one pipeline may list.
const MAX_CODECS: usize = 64;

/// numcodecs codecs that zarr-python runs as array->array codecs (before
/// `bytes`), by their numcodecs id.
const ARRAY_CODECS: [&str; 8] = [
    "delta",
    "fixedscaleoffset",
    "quantize",
    "bitround",
    "astype",
    "packbits",
    "categorize",
    "transpose",
];

/// A v3 pipeline in model terms.
#[derive(Debug, Clone, PartialEq)]
pub struct Pipeline {
    /// Chain in encoding order (array->array first), numcodecs-style JSON.
    pub codecs: Vec<Value>,
    /// The `bytes` codec's byte order: Some(true) big, Some(false) little,
    /// None when not given (one-byte values) or not `bytes`.
    pub big_endian: Option<bool>,
    pub serializer: Serializer,
}

/// The array->bytes codec.
#[derive(Debug, Clone, PartialEq)]
pub enum Serializer {
    Bytes,
    VlenUtf8,
    VlenBytes,
    /// `sharding_indexed`: the shard layout; the inner pipeline's chain and
    /// byte order are the pipeline's own.
    Sharding(ShardLayout),
}

fn bad(what: &str, c: &Value) -> NcError {
    crate::nclog!(Level::Warn, "Zarr v3 codec {}: {}", c, what);
    NcError::NcZarr
}

/// The name, configuration and `must_understand` of one codec entry (a
/// name alone, or `{"name", "configuration", "must_understand"}`).
fn entry(c: &Value) -> NcResult<(&str, Map<String, Value>, bool)> {
    match c {
        Value::String(s) => Ok((s, Map::new(), true)),
        Value::Object(o) => {
            let name = o.get("name").and_then(Value::as_str).ok_or_else(|| bad("no name", c))?;
            let conf = match o.get("configuration") {
                None | Some(Value::Null) => Map::new(),
                Some(Value::Object(m)) => m.clone(),
                Some(_) => return Err(bad("configuration is not an object", c)),
            };
            let must = o.get("must_understand").and_then(Value::as_bool).unwrap_or(true);
            Ok((name, conf, must))
        }
        _ => Err(bad("not a codec", c)),
    }
}

fn int(conf: &Map<String, Value>, key: &str, c: &Value) -> NcResult<i64> {
    conf.get(key)
        .and_then(Value::as_i64)
        .ok_or_else(|| bad(&format!("{key} is missing"), c))
}

/// A bytes->bytes codec (or a numcodecs one) as numcodecs-style JSON.
fn bytes_codec(name: &str, conf: &Map<String, Value>, c: &Value) -> NcResult<Value> {
    let mut m = Map::new();
    match name {
        "gzip" => {
            m.insert("id".into(), "gzip".into());
            m.insert("level".into(), int(conf, "level", c)?.into());
        }
        "zstd" => {
            m.insert("id".into(), "zstd".into());
            m.insert("level".into(), int(conf, "level", c)?.into());
            if let Some(k) = conf.get("checksum") {
                m.insert("checksum".into(), k.clone());
            }
        }
        "blosc" => {
            let shuffle = match conf.get("shuffle").and_then(Value::as_str) {
                Some("noshuffle") => 0,
                Some("shuffle") => 1,
                Some("bitshuffle") => 2,
                _ => return Err(bad("unknown shuffle", c)),
            };
            let cname = conf
                .get("cname")
                .and_then(Value::as_str)
                .ok_or_else(|| bad("no cname", c))?;
            m.insert("id".into(), "blosc".into());
            m.insert("cname".into(), cname.into());
            m.insert("clevel".into(), int(conf, "clevel", c)?.into());
            m.insert("shuffle".into(), shuffle.into());
            m.insert(
                "blocksize".into(),
                conf.get("blocksize").and_then(Value::as_i64).unwrap_or(0).into(),
            );
        }
        "crc32c" => {
            m.insert("id".into(), "crc32c".into());
        }
        other => {
            let id = other.strip_prefix("numcodecs.").unwrap_or(other);
            m.insert("id".into(), id.into());
            for (k, v) in conf {
                if k != "id" {
                    m.insert(k.clone(), v.clone());
                }
            }
        }
    }
    Ok(Value::Object(m))
}

/// `transpose` {order}: None for the identity; a permutation of the
/// dimensions (`ndim` of them) is required.
fn transpose(conf: &Map<String, Value>, ndim: usize, c: &Value) -> NcResult<Option<Value>> {
    let order: Vec<usize> = conf
        .get("order")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("no order", c))?
        .iter()
        .map(|x| x.as_u64().and_then(|u| usize::try_from(u).ok()))
        .collect::<Option<_>>()
        .ok_or_else(|| bad("order is not a list of dimensions", c))?;
    let mut seen = vec![false; ndim];
    if order.len() != ndim
        || order
            .iter()
            .any(|&o| o >= ndim || std::mem::replace(&mut seen[o], true))
    {
        return Err(bad("order is not a permutation of the dimensions", c));
    }
    if order.iter().enumerate().all(|(i, &o)| i == o) {
        return Ok(None);
    }
    Ok(Some(serde_json::json!({"id": "transpose", "order": order})))
}

/// Parse a `codecs` list for an array of `ndim` dimensions whose chunks have
/// shape `chunk` (for sharding: the shard shape).
pub fn parse(codecs: &Value, ndim: usize, chunk: &[usize]) -> NcResult<Pipeline> {
    parse_depth(codecs, ndim, chunk, 0)
}

fn parse_depth(codecs: &Value, ndim: usize, chunk: &[usize], depth: usize) -> NcResult<Pipeline> {
    let list = codecs.as_array().ok_or_else(|| bad("codecs is not a list", codecs))?;
    if list.is_empty() || list.len() > MAX_CODECS {
        return Err(bad("codecs must list 1 to 64 codecs", codecs));
    }
    let mut out = Vec::new();
    let mut serializer = None;
    let mut big_endian = None;
    for c in list {
        let (name, conf, must) = entry(c)?;
        if matches!(serializer, Some(Serializer::Sharding(_))) {
            // Codecs over whole shards would make inner chunks unreachable
            // by byte ranges.
            return Err(bad("codecs after sharding_indexed are not supported", c));
        }
        match (name, serializer.is_some()) {
            ("transpose" | "bytes" | "vlen-utf8" | "vlen-bytes" | "sharding_indexed", true) => {
                return Err(bad("a second array codec", c));
            }
            ("transpose", false) => out.extend(transpose(&conf, ndim, c)?),
            ("bytes", false) => {
                big_endian = match conf.get("endian").and_then(Value::as_str) {
                    None => None,
                    Some("little") => Some(false),
                    Some("big") => Some(true),
                    Some(_) => return Err(bad("unknown endian", c)),
                };
                serializer = Some(Serializer::Bytes);
            }
            ("vlen-utf8", false) => serializer = Some(Serializer::VlenUtf8),
            ("vlen-bytes", false) => serializer = Some(Serializer::VlenBytes),
            ("sharding_indexed", false) => {
                if depth > 0 {
                    return Err(bad("nested sharding is not supported", c));
                }
                let inner = sharding(&conf, ndim, chunk, c)?;
                // The inner pipeline's chain and byte order stand for the array's.
                let (layout, inner) = inner;
                out.extend(inner.codecs);
                big_endian = inner.big_endian;
                let layout = match inner.serializer {
                    Serializer::Bytes => layout,
                    _ => return Err(bad("sharded strings are not supported", c)),
                };
                serializer = Some(Serializer::Sharding(layout));
            }
            (n, false) if n.starts_with("numcodecs.") && ARRAY_CODECS.contains(&&n["numcodecs.".len()..]) => {
                out.push(bytes_codec(n, &conf, c)?);
            }
            (n, true)
                if matches!(n, "gzip" | "zstd" | "blosc" | "crc32c")
                    || (n.starts_with("numcodecs.") && n.len() > "numcodecs.".len()) =>
            {
                out.push(bytes_codec(n, &conf, c)?);
            }
            (_, _) if !must => {
                crate::nclog!(Level::Note, "Zarr v3 codec {} ignored (must_understand: false)", c);
            }
            (_, true) => {
                // Left for a plugin (NC_ENOFILTER on access without one).
                crate::nclog!(Level::Warn, "Zarr v3 codec {} is not built in", c);
                out.push(bytes_codec(name, &conf, c)?);
            }
            (_, false) => return Err(bad("unknown array codec", c)),
        }
    }
    let serializer = serializer.ok_or_else(|| bad("no array->bytes codec", codecs))?;
    Ok(Pipeline {
        codecs: out,
        big_endian,
        serializer,
    })
}

/// `sharding_indexed`: the layout, and the inner pipeline.
fn sharding(conf: &Map<String, Value>, ndim: usize, shard: &[usize], c: &Value) -> NcResult<(ShardLayout, Pipeline)> {
    let inner: Vec<usize> = conf
        .get("chunk_shape")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("no chunk_shape", c))?
        .iter()
        .map(|x| x.as_u64().and_then(|u| usize::try_from(u).ok()).filter(|&u| u > 0))
        .collect::<Option<_>>()
        .ok_or_else(|| bad("chunk_shape is not a list of positive lengths", c))?;
    if inner.len() != ndim || shard.len() != ndim {
        return Err(bad("chunk_shape has the wrong rank", c));
    }
    if inner.iter().zip(shard).any(|(&i, &s)| s % i != 0) {
        return Err(bad("the inner chunks do not divide the shard", c));
    }
    let at_start = match conf.get("index_location").and_then(Value::as_str) {
        None | Some("end") => false,
        Some("start") => true,
        Some(_) => return Err(bad("unknown index_location", c)),
    };
    let inner_codecs = conf.get("codecs").ok_or_else(|| bad("no codecs", c))?;
    let pipeline = parse_depth(inner_codecs, ndim, &inner, 1)?;
    // The index: `bytes` (any byte order), optionally `crc32c`.
    let default_index =
        serde_json::json!([{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]);
    let index_list = conf.get("index_codecs").unwrap_or(&default_index);
    let index = parse_depth(index_list, ndim + 1, &[], 1).map_err(|_| bad("unsupported index_codecs", c))?;
    let crc32c = match index.codecs.as_slice() {
        [] => false,
        [one]
            if one.get("id").and_then(Value::as_str) == Some("crc32c")
                && one.as_object().is_some_and(|o| o.len() == 1) =>
        {
            true
        }
        _ => return Err(bad("unsupported index_codecs", c)),
    };
    if index.serializer != Serializer::Bytes {
        return Err(bad("unsupported index_codecs", c));
    }
    let layout = ShardLayout::new(
        shard.to_vec(),
        inner,
        IndexCodecs {
            big_endian: index.big_endian == Some(true),
            crc32c,
        },
        at_start,
    )
    .ok_or_else(|| bad("the shard has too many inner chunks", c))?;
    Ok((layout, pipeline))
}

// ----- writing -----

/// Blosc's shuffle as v3 names it (numcodecs' -1, automatic, resolved by
/// the element size as blosc resolves it).
fn shuffle_name(v: Option<&Value>, typesize: usize) -> &'static str {
    match v.and_then(Value::as_i64).unwrap_or(1) {
        0 => "noshuffle",
        2 => "bitshuffle",
        -1 if typesize == 1 => "bitshuffle",
        _ => "shuffle",
    }
}

/// One numcodecs-style codec as a v3 codec (`typesize`: bytes per element).
fn codec_out(c: &Value, typesize: usize) -> Out {
    let Some(m) = c.as_object() else {
        return Out::from_value(c);
    };
    let id = m.get("id").and_then(Value::as_str).unwrap_or("");
    let conf =
        |pairs: Vec<(&str, Out)>| Out::obj(vec![("name", Out::Str(id.into())), ("configuration", Out::obj(pairs))]);
    let get = |k: &str| m.get(k).map(Out::from_value);
    match id {
        "gzip" => conf(vec![("level", get("level").unwrap_or(Out::U(1)))]),
        "zstd" => conf(vec![
            ("level", get("level").unwrap_or(Out::U(0))),
            ("checksum", get("checksum").unwrap_or(Out::Bool(false))),
        ]),
        "blosc" => conf(vec![
            ("typesize", Out::U(typesize as u64)),
            ("cname", get("cname").unwrap_or(Out::Str("lz4".into()))),
            ("clevel", get("clevel").unwrap_or(Out::U(5))),
            ("shuffle", Out::Str(shuffle_name(m.get("shuffle"), typesize).into())),
            ("blocksize", get("blocksize").unwrap_or(Out::U(0))),
        ]),
        "crc32c" if m.get("location").and_then(Value::as_str).is_none_or(|l| l == "end") => {
            Out::obj(vec![("name", Out::Str("crc32c".into()))])
        }
        "transpose" => conf(vec![("order", get("order").unwrap_or(Out::Arr(vec![])))]),
        _ => {
            let pairs: Vec<(String, Out)> = m
                .iter()
                .filter(|(k, _)| k.as_str() != "id")
                .map(|(k, v)| (k.clone(), Out::from_value(v)))
                .collect();
            Out::obj(vec![
                ("name", Out::Str(format!("numcodecs.{id}"))),
                ("configuration", Out::Obj(pairs)),
            ])
        }
    }
}

/// What a written pipeline is made of.
pub struct PipelineOut<'a> {
    pub codecs: &'a [Value],
    pub big_endian: bool,
    /// Bytes per element before codecs (the blosc typesize).
    pub typesize: usize,
    /// Strings: `vlen-utf8` or `vlen-bytes` as the serializer.
    pub vlen: Option<&'static str>,
    /// Write `bytes` without a byte order (one-byte values).
    pub no_endian: bool,
}

/// The `codecs` list of a pipeline: array->array codecs, the serializer,
/// then the rest.
pub fn pipeline_out(p: &PipelineOut) -> Vec<Out> {
    let is_array = |c: &Value| {
        c.get("id")
            .and_then(Value::as_str)
            .is_some_and(|id| ARRAY_CODECS.contains(&id))
    };
    let mut out: Vec<Out> = p
        .codecs
        .iter()
        .filter(|c| is_array(c))
        .map(|c| codec_out(c, p.typesize))
        .collect();
    out.push(match p.vlen {
        Some(name) => Out::obj(vec![
            ("name", Out::Str(name.into())),
            ("configuration", Out::obj(vec![])),
        ]),
        None if p.no_endian => Out::obj(vec![("name", Out::Str("bytes".into()))]),
        None => Out::obj(vec![
            ("name", Out::Str("bytes".into())),
            (
                "configuration",
                Out::obj(vec![(
                    "endian",
                    Out::Str(if p.big_endian { "big" } else { "little" }.into()),
                )]),
            ),
        ]),
    });
    out.extend(
        p.codecs
            .iter()
            .filter(|c| !is_array(c))
            .map(|c| codec_out(c, p.typesize)),
    );
    out
}

/// The `sharding_indexed` codec around an inner pipeline.
pub fn sharding_out(layout: &ShardLayout, inner: Vec<Out>) -> Out {
    let endian = if layout.index.big_endian { "big" } else { "little" };
    let mut index = vec![Out::obj(vec![
        ("name", Out::Str("bytes".into())),
        ("configuration", Out::obj(vec![("endian", Out::Str(endian.into()))])),
    ])];
    if layout.index.crc32c {
        index.push(Out::obj(vec![("name", Out::Str("crc32c".into()))]));
    }
    Out::obj(vec![
        ("name", Out::Str("sharding_indexed".into())),
        (
            "configuration",
            Out::obj(vec![
                (
                    "chunk_shape",
                    Out::Arr(layout.inner.iter().map(|&c| Out::U(c as u64)).collect()),
                ),
                ("codecs", Out::Arr(inner)),
                ("index_codecs", Out::Arr(index)),
                (
                    "index_location",
                    Out::Str(if layout.index_at_start { "start" } else { "end" }.into()),
                ),
            ]),
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn zarr_python_defaults() {
        let p = parse(
            &json!([{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", "configuration": {"level": 0, "checksum": false}}]),
            2,
            &[2, 3],
        )
        .unwrap();
        assert_eq!(p.codecs, vec![json!({"id": "zstd", "level": 0, "checksum": false})]);
        assert_eq!((p.big_endian, &p.serializer), (Some(false), &Serializer::Bytes));
        let s = parse(&json!([{"name": "vlen-utf8", "configuration": {}}]), 1, &[3]).unwrap();
        assert_eq!(s.serializer, Serializer::VlenUtf8);
        let b = parse(&json!(["bytes"]), 1, &[3]).unwrap();
        assert_eq!(b.big_endian, None);
    }

    #[test]
    fn every_mapping() {
        let p = parse(
            &json!([
                {"name": "transpose", "configuration": {"order": [1, 0]}},
                {"name": "bytes", "configuration": {"endian": "big"}},
                {"name": "blosc", "configuration": {"typesize": 4, "cname": "lz4", "clevel": 5, "shuffle": "bitshuffle", "blocksize": 0}},
                {"name": "gzip", "configuration": {"level": 3}},
                {"name": "numcodecs.zlib", "configuration": {"level": 2}},
                {"name": "crc32c"},
                {"name": "some.hint", "must_understand": false}
            ]),
            2,
            &[4, 4],
        )
        .unwrap();
        assert_eq!(p.big_endian, Some(true));
        assert_eq!(
            p.codecs,
            vec![
                json!({"id": "transpose", "order": [1, 0]}),
                json!({"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 2, "blocksize": 0}),
                json!({"id": "gzip", "level": 3}),
                json!({"id": "zlib", "level": 2}),
                json!({"id": "crc32c"}),
            ]
        );
        // Identity transpose: nothing.
        let p = parse(
            &json!([{"name": "transpose", "configuration": {"order": [0, 1]}}, "bytes"]),
            2,
            &[1, 1],
        )
        .unwrap();
        assert!(p.codecs.is_empty());
        // An unknown bytes codec stays (for a plugin).
        let p = parse(
            &json!(["bytes", {"name": "mystery", "configuration": {"x": 1}}]),
            1,
            &[1],
        )
        .unwrap();
        assert_eq!(p.codecs, vec![json!({"id": "mystery", "x": 1})]);
    }

    #[test]
    fn refusals() {
        for bad in [
            json!([]),
            json!({}),
            json!(["zstd"]),
            json!([{"name": "transpose", "configuration": {"order": [0, 0]}}, "bytes"]),
            json!([{"name": "transpose", "configuration": {"order": [0]}}, "bytes"]),
            json!([{"name": "mystery"}, "bytes"]),
            json!([{"name": "bytes", "configuration": {"endian": "middle"}}]),
            json!(["bytes", {"name": "blosc", "configuration": {"shuffle": "sideways", "cname": "lz4", "clevel": 1}}]),
            json!(["bytes", {"name": "gzip", "configuration": {}}]),
            json!([{"configuration": {}}]),
            json!([5]),
        ] {
            assert_eq!(parse(&bad, 2, &[2, 2]), Err(NcError::NcZarr), "{bad}");
        }
    }

    #[test]
    fn sharding() {
        let c = json!([{"name": "sharding_indexed", "configuration": {
            "chunk_shape": [2, 5],
            "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", "configuration": {"level": 0, "checksum": false}}],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
            "index_location": "end"}}]);
        let p = parse(&c, 2, &[4, 10]).unwrap();
        let Serializer::Sharding(l) = &p.serializer else {
            panic!()
        };
        assert_eq!((l.inner.as_slice(), l.per_shard.as_slice()), (&[2, 5][..], &[2, 2][..]));
        assert!(l.index.crc32c && !l.index.big_endian && !l.index_at_start);
        assert_eq!(p.codecs, vec![json!({"id": "zstd", "level": 0, "checksum": false})]);
        // Inner chunks that do not divide the shard; nested sharding; odd index codecs.
        let mut odd = c.clone();
        odd[0]["configuration"]["chunk_shape"] = json!([3, 5]);
        assert!(parse(&odd, 2, &[4, 10]).is_err());
        let mut nested = c.clone();
        nested[0]["configuration"]["codecs"] = c.clone();
        assert!(parse(&nested, 2, &[4, 10]).is_err());
        let mut idx = c.clone();
        idx[0]["configuration"]["index_codecs"] = json!(["bytes", {"name": "gzip", "configuration": {"level": 1}}]);
        assert!(parse(&idx, 2, &[4, 10]).is_err());
    }

    #[test]
    fn written_pipelines_read_back() {
        let codecs = vec![
            json!({"id": "shuffle", "elementsize": 4}),
            json!({"id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": -1, "blocksize": 0}),
            json!({"id": "zstd", "level": 4}),
            json!({"id": "crc32c"}),
        ];
        let out = Out::Arr(pipeline_out(&PipelineOut {
            codecs: &codecs,
            big_endian: false,
            typesize: 4,
            vlen: None,
            no_endian: false,
        }));
        let v: Value = serde_json::from_str(&out.to_json()).unwrap();
        let p = parse(&v, 1, &[8]).unwrap();
        assert_eq!(p.codecs[0], json!({"id": "shuffle", "elementsize": 4}));
        assert_eq!(p.codecs[1]["shuffle"], json!(1));
        assert_eq!(p.codecs[2], json!({"id": "zstd", "level": 4, "checksum": false}));
        assert_eq!(p.codecs[3], json!({"id": "crc32c"}));
        assert_eq!(p.big_endian, Some(false));
    }
}
