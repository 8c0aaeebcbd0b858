//! Every aggregation encoding into one description: which encoding a
//! variable uses (told by the terms of its attributes, never by
//! `Conventions`), and its fragments in a normalised form, validated.
//!
//! The encodings (see docs/aggregation in the README):
//! - CF-1.13: `aggregated_data = "map: M uris: U identifiers: I"` or
//!   `"map: M unique_values: V"` (terms case-sensitive);
//! - the CF drafts of 2024 (`shape`/`location`/`address`, `shape`/`value`)
//!   and of 2024-10..2025-05 (`map`/`location`/`identifier`,
//!   `map`/`unique_value`);
//! - CFA-0.6.2: `location`/`file`/`address`/`format` (terms in any case),
//!   `substitutions` on the file variable, missing fragments, alternative
//!   URIs in a trailing dimension (the first present one is taken), a
//!   missing file with an address meaning a variable of the master itself;
//! - CFA-0.4 (`cf_role = "cfa_variable"` with `cfa_dimensions` and a JSON
//!   `cfa_array`, S3netCDF4's and cf-python's form, NCA's with `data`);
//! - S3netCDF4's group form ("CFA-0.5": `cf_role = "cfa_variable"` with
//!   `cfa_dimensions` and `cfa_group` naming a subgroup that holds the
//!   partition matrix as variables), read by the same partition code.
#![forbid(unsafe_code)]

use std::collections::BTreeMap;

/// Most fragments one aggregation variable may have.
pub const MAX_FRAGMENTS: usize = 1 << 20;
/// Most dimensions an aggregated variable may have (NC_MAX_VAR_DIMS).
pub const MAX_DIMS: usize = 1024;

/// The encoding a variable's attributes use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Encoding {
    /// CF-1.13 `map` + `uris` + `identifiers` or `map` + `unique_values`.
    Cf113,
    /// CF draft of 2024-05: `shape` + `location` + `address`, or `shape` + `value`.
    CfDraft2024,
    /// CF draft of 2024-10..2025-05: `map` + `location` + `identifier`, or
    /// `map` + `unique_value`.
    CfDraft2025,
    /// NCAS-CMS CFA-0.6.2: `location` + `file` + `address` (+ `format`).
    Cfa062,
    /// CFA-0.4 / NCA: `cf_role = "cfa_variable"` with `cfa_dimensions` and the JSON `cfa_array`.
    Cfa04,
    /// S3netCDF4's "CFA-0.5" group form: `cfa_group` names the subgroup
    /// holding the partition matrix.
    S3Netcdf4,
}

impl Encoding {
    /// The name `_Aggregation` reports.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Cf113 => "CF-1.13",
            Encoding::CfDraft2024 => "CF-draft-2024",
            Encoding::CfDraft2025 => "CF-draft-2025",
            Encoding::Cfa062 => "CFA-0.6.2",
            Encoding::Cfa04 => "CFA-0.4",
            Encoding::S3Netcdf4 => "S3netCDF4",
        }
    }
}

/// The aggregation attributes of one variable.
#[derive(Debug, Clone, Default)]
pub struct AggAtts {
    pub aggregated_dimensions: Option<String>,
    pub aggregated_data: Option<String>,
    pub cf_role: Option<String>,
    pub cfa_group: Option<String>,
    pub cfa_array: Option<String>,
    pub cfa_dimensions: Option<String>,
}

/// The attribute names an aggregation view removes from the variable.
pub const AGG_ATT_NAMES: [&str; 5] = [
    "aggregated_dimensions",
    "aggregated_data",
    "cfa_dimensions",
    "cfa_array",
    "cfa_group",
];

/// What a variable's attributes say, before any table is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Detected {
    /// A term-based encoding: the aggregated dimension names and the table
    /// variable of each role.
    Terms {
        encoding: Encoding,
        dims: Vec<String>,
        roles: Roles,
    },
    /// CFA-0.4: the aggregated dimension names (`cfa_dimensions`) and
    /// the JSON partition matrix (`cfa_array`).
    Cfa04 { dims: Vec<String>, json: String },
    /// S3netCDF4's group form: the aggregated dimension names
    /// (`cfa_dimensions`) and the subgroup holding the matrix (`cfa_group`).
    CfaGroup { dims: Vec<String>, group: String },
    /// Aggregation attributes that make no known encoding (why).
    Invalid(String),
}

/// The table variable of each role (names as written in `aggregated_data`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Roles {
    /// Fragment sizes per dimension (`map`, `shape`, CFA `location`).
    pub sizes: Option<String>,
    /// Fragment datasets (`uris`, draft `location`, CFA `file`).
    pub uris: Option<String>,
    /// Variables inside the fragments (`identifiers`, `identifier`, `address`).
    pub identifiers: Option<String>,
    /// Constant fragment values (`unique_values`, `unique_value`, `value`).
    pub values: Option<String>,
}

impl Roles {
    /// The table variables named, without repeats.
    pub fn tables(&self) -> Vec<String> {
        let mut v: Vec<String> = [&self.sizes, &self.uris, &self.identifiers, &self.values]
            .into_iter()
            .flatten()
            .cloned()
            .collect();
        v.dedup();
        v
    }
}

/// `term: value term: value ...` into pairs, in order; None when a term
/// has no value or a value no term.
pub fn parse_terms(text: &str) -> Option<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mut words = text.split_whitespace();
    while let Some(w) = words.next() {
        // `term: value` or `term:value`.
        let (term, rest) = w.split_once(':')?;
        if term.is_empty() {
            return None;
        }
        let value = if rest.is_empty() { words.next()? } else { rest };
        if value.ends_with(':') {
            return None;
        }
        out.push((term.to_string(), value.to_string()));
    }
    (!out.is_empty()).then_some(out)
}

/// Tell the encoding of a variable from its attributes; None when it is
/// not an aggregation variable at all.
pub fn detect(atts: &AggAtts) -> Option<Detected> {
    if atts.aggregated_dimensions.is_none() && atts.aggregated_data.is_none() {
        if atts.cf_role.as_deref().map(str::trim) == Some("cfa_variable") || atts.cfa_array.is_some() {
            let dims = |d: &str| -> Vec<String> { d.split_whitespace().map(str::to_string).collect() };
            return Some(match (&atts.cfa_dimensions, &atts.cfa_array, &atts.cfa_group) {
                (Some(d), None, Some(g)) => Detected::CfaGroup {
                    dims: dims(d),
                    group: g.trim().to_string(),
                },
                (Some(d), Some(j), None) => Detected::Cfa04 {
                    dims: dims(d),
                    json: j.clone(),
                },
                (Some(_), Some(_), Some(_)) => {
                    Detected::Invalid("a cfa_variable with both cfa_array and cfa_group".into())
                }
                _ => Detected::Invalid("a cfa_variable without cfa_dimensions and cfa_array or cfa_group".into()),
            });
        }
        return None;
    }
    let invalid = |why: &str| Some(Detected::Invalid(why.to_string()));
    let (Some(dims), Some(data)) = (&atts.aggregated_dimensions, &atts.aggregated_data) else {
        return invalid("aggregated_dimensions and aggregated_data go together");
    };
    let dims: Vec<String> = dims.split_whitespace().map(str::to_string).collect();
    if dims.len() > MAX_DIMS {
        return invalid("too many aggregated dimensions");
    }
    let Some(terms) = parse_terms(data) else {
        return invalid("aggregated_data is not a list of `term: variable`");
    };
    let mut map: BTreeMap<&str, &str> = BTreeMap::new();
    for (t, v) in &terms {
        if map.insert(t.as_str(), v.as_str()).is_some() {
            return invalid("a term appears twice in aggregated_data");
        }
    }
    let keys: Vec<&str> = map.keys().copied().collect();
    let get = |k: &str| map.get(k).map(|v| v.to_string());
    let (encoding, roles) = match keys.as_slice() {
        ["identifiers", "map", "uris"] => (
            Encoding::Cf113,
            Roles {
                sizes: get("map"),
                uris: get("uris"),
                identifiers: get("identifiers"),
                values: None,
            },
        ),
        ["map", "unique_values"] => (
            Encoding::Cf113,
            Roles {
                sizes: get("map"),
                values: get("unique_values"),
                ..Roles::default()
            },
        ),
        ["identifier", "location", "map"] => (
            Encoding::CfDraft2025,
            Roles {
                sizes: get("map"),
                uris: get("location"),
                identifiers: get("identifier"),
                values: None,
            },
        ),
        ["map", "unique_value"] => (
            Encoding::CfDraft2025,
            Roles {
                sizes: get("map"),
                values: get("unique_value"),
                ..Roles::default()
            },
        ),
        ["address", "location", "shape"] => (
            Encoding::CfDraft2024,
            Roles {
                sizes: get("shape"),
                uris: get("location"),
                identifiers: get("address"),
                values: None,
            },
        ),
        ["shape", "value"] => (
            Encoding::CfDraft2024,
            Roles {
                sizes: get("shape"),
                values: get("value"),
                ..Roles::default()
            },
        ),
        _ => {
            // CFA-0.6.2: terms in any case, extra terms allowed.
            let lower: BTreeMap<String, String> =
                terms.iter().map(|(t, v)| (t.to_ascii_lowercase(), v.clone())).collect();
            let has = |k: &str| lower.get(k).cloned();
            match (has("location"), has("file"), has("address")) {
                (Some(loc), file, address) if file.is_some() || address.is_some() => (
                    Encoding::Cfa062,
                    Roles {
                        sizes: Some(loc),
                        uris: file,
                        identifiers: address,
                        values: None,
                    },
                ),
                _ => return invalid("aggregated_data has no known combination of terms"),
            }
        }
    };
    Some(Detected::Terms { encoding, dims, roles })
}

/// A table read from the master: its shape and values in row-major order.
#[derive(Debug, Clone, PartialEq)]
pub struct Table<T> {
    pub shape: Vec<usize>,
    pub data: Vec<T>,
}

/// Where the description's inputs come from (the open master, or a test).
pub trait Tables {
    /// The length of the dimension `name` as seen from the aggregation variable.
    fn dim_len(&mut self, name: &str) -> Option<usize>;
    /// An integer table; None for a missing (fill) entry.
    fn ints(&mut self, var: &str) -> Result<Table<Option<i64>>, String>;
    /// A string table (a char array loses its last dimension); None for a
    /// missing or empty entry.
    fn strings(&mut self, var: &str) -> Result<Table<Option<String>>, String>;
    /// A table of values converted to the aggregated type, native-endian;
    /// None for a missing entry.
    fn values(&mut self, var: &str) -> Result<Table<Option<Vec<u8>>>, String>;
    /// A text attribute of a table variable.
    fn text_att(&mut self, var: &str, att: &str) -> Option<String>;
    /// Whether the table variable `var` exists (for optional tables).
    fn exists(&mut self, var: &str) -> bool;
}

/// One fragment of the aggregated array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fragment {
    /// A variable in another dataset (`uri` None: in the master itself,
    /// CFA-0.6.2's in-file fragment).
    Dataset { uri: Option<String>, identifier: String },
    /// Every value the same (native-endian bytes of the aggregated type).
    Constant(Vec<u8>),
    /// Wholly missing: reads as the aggregation's fill value.
    Missing,
}

/// An aggregation variable, normalised and validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Aggregation {
    pub encoding: Encoding,
    /// The aggregated dimension names, slowest first.
    pub dims: Vec<String>,
    /// The aggregated shape.
    pub shape: Vec<usize>,
    /// Per dimension, the fragment sizes along it (they sum to `shape`).
    pub sizes: Vec<Vec<usize>>,
    /// The fragments in row-major order over the fragment grid.
    pub fragments: Vec<Fragment>,
    /// The last dimension is the string length of a char variable that is
    /// not aggregated (the master's variable has it): one entry in the
    /// grid, and a fragment may be shorter along it (the rest reads as fill).
    pub padded_last: bool,
}

impl Aggregation {
    /// The fragment grid's shape (fragments per dimension).
    pub fn grid(&self) -> Vec<usize> {
        self.sizes.iter().map(Vec::len).collect()
    }
}

/// Read and check the tables of a detected encoding. Err says why the
/// variable cannot be expanded (it is then shown raw).
pub fn describe(encoding: Encoding, dims: &[String], roles: &Roles, t: &mut dyn Tables) -> Result<Aggregation, String> {
    let mut shape = Vec::with_capacity(dims.len());
    for d in dims {
        shape.push(
            t.dim_len(d)
                .ok_or_else(|| format!("aggregated dimension {d} does not exist"))?,
        );
    }
    let sizes = match &roles.sizes {
        Some(v) => fragment_sizes(&t.ints(v)?, &shape)?,
        None => return Err("no fragment sizes".into()),
    };
    let grid: Vec<usize> = sizes.iter().map(Vec::len).collect();
    let total = grid
        .iter()
        .try_fold(1usize, |a, &k| a.checked_mul(k))
        .filter(|&n| n <= MAX_FRAGMENTS)
        .ok_or("too many fragments")?;
    let fragments = if total == 0 {
        // Nothing to read: the tables are not looked at.
        Vec::new()
    } else if let Some(v) = &roles.values {
        let vals = t.values(v)?;
        check_table_shape(&vals.shape, &grid, false, v)?;
        vals.data
            .into_iter()
            .map(|x| x.map_or(Fragment::Missing, Fragment::Constant))
            .collect()
    } else {
        dataset_fragments(encoding, roles, &grid, total, t)?
    };
    if fragments.len() != total {
        return Err(format!("{} fragments listed for a grid of {total}", fragments.len()));
    }
    Ok(Aggregation {
        encoding,
        dims: dims.to_vec(),
        shape,
        sizes,
        fragments,
        padded_last: false,
    })
}

/// Longest `cfa_array` text read (a hostile master cannot make the parser
/// hold more).
pub const MAX_CFA_ARRAY: usize = 64 << 20;

/// How the ends of a partition's `location` are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ends {
    /// Exclusive (S3netCDF4's group form); a subarray shape must agree.
    Exclusive,
    /// What the subarray's shape says; without one, inclusive or not as given.
    ByShape { inclusive: bool },
}

/// One partition of a CFA partition matrix (the JSON `cfa_array` or
/// S3netCDF4's `cfa_<var>` group), as written.
#[derive(Debug, Clone)]
struct Partition {
    /// Its place in the matrix, along pmdimensions (or along every
    /// aggregated dimension).
    index: Vec<u64>,
    /// Per aggregated dimension, `[start, end]`.
    location: Vec<(u64, u64)>,
    /// The subarray's shape, when given.
    shape: Option<Vec<u64>>,
    ends: Ends,
    /// None: a variable of the master itself (NCA private data).
    file: Option<String>,
    ncvar: String,
}

/// A CFA partition matrix, as written.
#[derive(Debug, Clone)]
struct Matrix {
    pmshape: Vec<u64>,
    /// None: every aggregated dimension, when pmshape has one per dimension.
    pmdims: Option<Vec<String>>,
    /// Prefix of relative subarray files.
    base: Option<String>,
    partitions: Vec<Partition>,
}

/// A CFA-0.4 `cfa_array` (the JSON partition matrix, S3netCDF4's and
/// cf-python's form) into the description: `pmshape` and `pmdimensions`
/// give the fragment grid over the aggregated dimensions (`dims`, from
/// `cfa_dimensions`; a dimension not partitioned has one fragment), each
/// of `Partitions` its grid `index`, its `location` (per dimension
/// `[start, end]`: inclusive when `subarray.shape` says so or, without a
/// shape, as S3netCDF4 writes it; exclusive with NCA's `data`) and its
/// `subarray` `file` and `ncvar`. Absent partitions read as fill; their
/// sizes come from their neighbours' boundaries (else the variable is
/// refused). `dim_len` gives each dimension's length.
pub fn describe_cfa04(
    dims: &[String],
    json: &str,
    dim_len: &mut dyn FnMut(&str) -> Option<usize>,
) -> Result<Aggregation, String> {
    if json.len() > MAX_CFA_ARRAY {
        return Err("cfa_array is too long".into());
    }
    let doc: serde_json::Value = serde_json::from_str(json).map_err(|e| format!("cfa_array is not JSON: {e}"))?;
    let shape = dim_lengths(dims, dim_len)?;
    let matrix = cfa04_matrix(&doc)?;
    describe_matrix(Encoding::Cfa04, dims, shape, matrix)
}

fn dim_lengths(dims: &[String], dim_len: &mut dyn FnMut(&str) -> Option<usize>) -> Result<Vec<usize>, String> {
    dims.iter()
        .map(|d| dim_len(d).ok_or_else(|| format!("aggregated dimension {d} does not exist")))
        .collect()
}

/// The partition matrix of a `cfa_array` document.
fn cfa04_matrix(doc: &serde_json::Value) -> Result<Matrix, String> {
    let ints = |v: Option<&serde_json::Value>, what: &str| -> Result<Vec<u64>, String> {
        v.and_then(|x| x.as_array())
            .ok_or_else(|| format!("{what} is not a list"))?
            .iter()
            .map(|x| x.as_u64().ok_or_else(|| format!("{what} holds a non-integer")))
            .collect()
    };
    let pmshape = ints(doc.get("pmshape"), "pmshape")?;
    let pmdims = match doc.get("pmdimensions").or_else(|| doc.get("pmdims")) {
        Some(v) => Some(
            v.as_array()
                .ok_or("pmdimensions is not a list")?
                .iter()
                .map(|x| x.as_str().map(str::to_string).ok_or("pmdimensions holds a non-string"))
                .collect::<Result<Vec<_>, _>>()?,
        ),
        None => None,
    };
    let parts = doc
        .get("Partitions")
        .and_then(|p| p.as_array())
        .ok_or("no Partitions list")?;
    if parts.len() > MAX_FRAGMENTS {
        return Err("too many partitions".into());
    }
    let mut partitions = Vec::with_capacity(parts.len());
    for p in parts {
        let index = ints(p.get("index"), "a partition's index")?;
        let sub = p
            .get("subarray")
            .or_else(|| p.get("data"))
            .ok_or("a partition without subarray")?;
        let shape = match sub.get("shape") {
            Some(s) => Some(ints(Some(s), "a subarray's shape")?),
            None => None,
        };
        let loc = p
            .get("location")
            .and_then(|l| l.as_array())
            .ok_or("a partition's location is not a list")?;
        let mut location = Vec::with_capacity(loc.len());
        for l in loc {
            let pair = ints(Some(l), "a location")?;
            let [a, b] = pair[..] else {
                return Err("a location entry is not [start, end]".into());
            };
            location.push((a, b));
        }
        partitions.push(Partition {
            index,
            location,
            shape,
            ends: Ends::ByShape {
                inclusive: p.get("subarray").is_some(),
            },
            file: sub.get("file").and_then(|f| f.as_str()).map(str::to_string),
            ncvar: sub
                .get("ncvar")
                .and_then(|f| f.as_str())
                .ok_or("a subarray without ncvar")?
                .to_string(),
        });
    }
    Ok(Matrix {
        pmshape,
        pmdims,
        base: doc.get("base").and_then(|b| b.as_str()).map(str::to_string),
        partitions,
    })
}

/// S3netCDF4's group form ("CFA-0.5"): the partition matrix in the group
/// `cfa_group` names, read through `t` (which sees that group's variables
/// only): `ncvar(pm...)` and `file(pm...)` (strings; an empty `ncvar` is a
/// partition not written, read as fill), `location(pm..., ndimensions,
/// bounds)` with exclusive ends, optionally `index(pm..., ndimensions)`
/// (each entry its own place), `shape(pm..., ndimensions)`, `pmshape`,
/// `pmdimensions` (one string, names joined by commas, which must be the
/// aggregated dimensions in order) and `base`. `dim_len` gives each
/// aggregated dimension's length (seen from the aggregation variable).
pub fn describe_cfa_group(
    dims: &[String],
    dim_len: &mut dyn FnMut(&str) -> Option<usize>,
    t: &mut dyn Tables,
) -> Result<Aggregation, String> {
    let shape = dim_lengths(dims, dim_len)?;
    let n = dims.len();
    let ncvar = t.strings("ncvar")?;
    let grid = ncvar.shape.clone();
    if grid.len() != n {
        return Err(format!("ncvar has {} dimensions, the variable {n}", grid.len()));
    }
    let total = grid
        .iter()
        .try_fold(1usize, |a, &k| a.checked_mul(k))
        .filter(|&t| t <= MAX_FRAGMENTS)
        .ok_or("too many fragments")?;
    if t.exists("pmdimensions") {
        let pm = t.strings("pmdimensions")?;
        let names: Vec<String> = pm
            .data
            .first()
            .cloned()
            .flatten()
            .unwrap_or_default()
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
        if pm.data.len() != 1 || names != dims {
            return Err(format!(
                "pmdimensions {names:?} are not the aggregated dimensions {dims:?}"
            ));
        }
    }
    if t.exists("pmshape") {
        let pm = t.ints("pmshape")?;
        let want: Vec<Option<i64>> = grid.iter().map(|&k| i64::try_from(k).ok()).collect();
        if pm.data != want {
            return Err(format!(
                "pmshape {:?} differs from the matrix's shape {grid:?}",
                pm.data
            ));
        }
    }
    let mut trailing = grid.clone();
    trailing.push(n);
    // A table of `per` values for each partition, or None when absent.
    let rows = |t: &mut dyn Tables, name: &str, tail: &[usize]| -> Result<Option<Vec<Option<i64>>>, String> {
        if !t.exists(name) {
            return Ok(None);
        }
        let tab = t.ints(name)?;
        let mut want = grid.clone();
        want.extend_from_slice(tail);
        if tab.shape != want {
            return Err(format!("{name} has shape {:?}, not {want:?}", tab.shape));
        }
        Ok(Some(tab.data))
    };
    let location = rows(t, "location", &[n, 2])?.ok_or("no location variable")?;
    let index = rows(t, "index", &[n])?;
    let sub_shape = rows(t, "shape", &[n])?;
    let file = t.strings("file")?;
    if file.shape != grid {
        return Err(format!("file has shape {:?}, not {grid:?}", file.shape));
    }
    let base = if t.exists("base") {
        t.strings("base")?.data.into_iter().next().flatten()
    } else {
        None
    };
    let unsigned = |v: &[Option<i64>], what: &str| -> Result<Vec<u64>, String> {
        v.iter()
            .map(|x| {
                x.and_then(|x| u64::try_from(x).ok())
                    .ok_or_else(|| format!("{what} holds a missing or negative value"))
            })
            .collect()
    };
    let mut partitions = Vec::new();
    let mut pos = vec![0u64; n];
    for p in 0..total {
        // pos: the partition's place, row-major over the grid.
        let mut rest = p;
        for d in (0..n).rev() {
            pos[d] = (rest % grid[d]) as u64;
            rest /= grid[d];
        }
        let Some(var) = ncvar.data[p].clone() else {
            continue;
        };
        if let Some(ix) = &index {
            let row = &ix[p * n..(p + 1) * n];
            if row.iter().all(Option::is_some) {
                let got = unsigned(row, "index")?;
                if got != pos {
                    return Err(format!("partition index {got:?} stored at {pos:?}, outside its place"));
                }
            }
        }
        let loc = unsigned(&location[p * 2 * n..(p + 1) * 2 * n], "location")?;
        partitions.push(Partition {
            index: pos.clone(),
            location: loc.chunks_exact(2).map(|c| (c[0], c[1])).collect(),
            shape: match &sub_shape {
                Some(s) if s[p * n..(p + 1) * n].iter().all(Option::is_some) => {
                    Some(unsigned(&s[p * n..(p + 1) * n], "shape")?)
                }
                _ => None,
            },
            ends: Ends::Exclusive,
            file: Some(file.data[p].clone().ok_or("a written partition without a file")?),
            ncvar: var,
        });
    }
    let matrix = Matrix {
        pmshape: grid.iter().map(|&k| k as u64).collect(),
        pmdims: None,
        base,
        partitions,
    };
    describe_matrix(Encoding::S3Netcdf4, dims, shape, matrix)
}

/// A partition matrix into the description: the grid, each partition
/// placed and checked against its neighbours, the sizes along each
/// dimension from the partitions' boundaries.
fn describe_matrix(encoding: Encoding, dims: &[String], shape: Vec<usize>, m: Matrix) -> Result<Aggregation, String> {
    let n = dims.len();
    // The grid: pmshape along pmdimensions (all dimensions when absent).
    let pmdims = match m.pmdims {
        Some(p) => p,
        None if m.pmshape.len() == n => dims.to_vec(),
        None => return Err("no pmdimensions".into()),
    };
    if pmdims.len() != m.pmshape.len() {
        return Err("pmshape and pmdimensions differ in length".into());
    }
    let mut grid = vec![1usize; n];
    let mut pm_axis = Vec::with_capacity(pmdims.len());
    for (name, &k) in pmdims.iter().zip(&m.pmshape) {
        let d = dims
            .iter()
            .position(|x| x == name)
            .ok_or_else(|| format!("pmdimensions names {name}, not an aggregated dimension"))?;
        if pm_axis.contains(&d) {
            return Err(format!("pmdimensions names {name} twice"));
        }
        pm_axis.push(d);
        grid[d] = usize::try_from(k).map_err(|_| "pmshape is too large")?;
    }
    let total = grid
        .iter()
        .try_fold(1usize, |a, &k| a.checked_mul(k))
        .filter(|&t| t <= MAX_FRAGMENTS)
        .ok_or("too many fragments")?;
    for (d, &k) in grid.iter().enumerate() {
        if k == 0 && shape[d] != 0 {
            return Err(format!("no partition along dimension {}", dims[d]));
        }
    }
    // Boundaries per dimension: b[d][i] is where fragment i starts.
    let mut bounds: Vec<Vec<Option<usize>>> = grid.iter().map(|&k| vec![None; k + 1]).collect();
    for (d, b) in bounds.iter_mut().enumerate() {
        b[0] = Some(0);
        if let Some(last) = b.last_mut() {
            *last = Some(shape[d]);
        }
    }
    if m.partitions.len() > total {
        return Err(format!("{} partitions for a grid of {total}", m.partitions.len()));
    }
    let mut fragments = vec![Fragment::Missing; total];
    let mut seen = vec![false; total];
    for p in m.partitions {
        let index = &p.index;
        // The index along the partitioned dimensions (NCA), or along all.
        let idx: Vec<usize> = if index.len() == pm_axis.len() {
            let mut full = vec![0usize; n];
            for (&d, &i) in pm_axis.iter().zip(index) {
                full[d] = usize::try_from(i).unwrap_or(usize::MAX);
            }
            full
        } else if index.len() == n {
            index
                .iter()
                .map(|&i| usize::try_from(i).unwrap_or(usize::MAX))
                .collect()
        } else {
            return Err("a partition's index has the wrong length".into());
        };
        if idx.iter().zip(&grid).any(|(&i, &k)| i >= k) {
            return Err(format!("partition index {index:?} outside pmshape"));
        }
        let lin = idx.iter().zip(&grid).fold(0usize, |a, (&i, &k)| a * k + i);
        if std::mem::replace(&mut seen[lin], true) {
            return Err(format!("partition index {index:?} appears twice"));
        }
        if p.location.len() != n {
            return Err("a partition's location has the wrong length".into());
        }
        for (d, (a, end)) in location_ranges(&p)?.into_iter().enumerate() {
            for (slot, v) in [(idx[d], a), (idx[d] + 1, end)] {
                match bounds[d][slot] {
                    Some(x) if x != v => {
                        return Err(format!(
                            "partition {index:?}: location {v} on dimension {} disagrees with {x}",
                            dims[d]
                        ));
                    }
                    _ => bounds[d][slot] = Some(v),
                }
            }
        }
        let uri = match (&m.base, p.file) {
            (Some(base), Some(f)) if !f.starts_with('/') && !f.contains("://") => {
                Some(format!("{}/{f}", base.trim_end_matches('/')))
            }
            // No file: a variable of the master itself (NCA private data).
            (_, f) => f,
        };
        fragments[lin] = Fragment::Dataset {
            uri,
            identifier: p.ncvar,
        };
    }
    let mut sizes = Vec::with_capacity(n);
    for (d, b) in bounds.iter().enumerate() {
        let mut row = Vec::with_capacity(b.len().saturating_sub(1));
        for w in b.windows(2) {
            match (w[0], w[1]) {
                (Some(a), Some(e)) if e >= a => row.push(e - a),
                (Some(_), Some(_)) => return Err(format!("locations on dimension {} overlap", dims[d])),
                _ => return Err(format!("missing partitions leave dimension {} without sizes", dims[d])),
            }
        }
        sizes.push(row);
    }
    Ok(Aggregation {
        encoding,
        dims: dims.to_vec(),
        shape,
        sizes,
        fragments,
        padded_last: false,
    })
}

/// A partition's `[start, end)` per dimension: its ends read inclusive or
/// exclusive as its subarray's shape says (compared without size-1
/// dimensions, which may be omitted), else as its form says.
fn location_ranges(p: &Partition) -> Result<Vec<(usize, usize)>, String> {
    let index = &p.index;
    let sizes_if = |incl: bool| -> Option<Vec<u64>> {
        p.location
            .iter()
            .map(|&(a, b)| {
                if incl {
                    b.checked_sub(a)?.checked_add(1)
                } else {
                    b.checked_sub(a)
                }
            })
            .collect()
    };
    let squeeze = |v: &[u64]| -> Vec<u64> { v.iter().copied().filter(|&x| x != 1).collect() };
    let matches = |incl: bool, s: &[u64]| sizes_if(incl).is_some_and(|v| squeeze(&v) == squeeze(s));
    let inclusive = match (&p.shape, p.ends) {
        (Some(s), _) if matches(false, s) => false,
        (Some(s), Ends::ByShape { .. }) if matches(true, s) => true,
        (Some(_), _) => return Err(format!("partition {index:?}: location and subarray shape differ")),
        (None, Ends::ByShape { inclusive }) => inclusive,
        (None, Ends::Exclusive) => false,
    };
    let mut out = Vec::with_capacity(p.location.len());
    for &(a, b) in &p.location {
        let end = if inclusive { b.checked_add(1) } else { Some(b) }.ok_or("a location is too large")?;
        let (a, end) = (
            usize::try_from(a).map_err(|_| "a location is too large")?,
            usize::try_from(end).map_err(|_| "a location is too large")?,
        );
        if end < a {
            return Err(format!("partition {index:?}: location ends before it starts"));
        }
        out.push((a, end));
    }
    Ok(out)
}

/// The fragment sizes along each dimension from a sizes table (row d:
/// sizes along dimension d, padded with missing entries).
fn fragment_sizes(map: &Table<Option<i64>>, shape: &[usize]) -> Result<Vec<Vec<usize>>, String> {
    let n = shape.len();
    let rows: Vec<&[Option<i64>]> = match (n, map.shape.as_slice()) {
        (0, _) if map.data.len() <= 1 => return Ok(Vec::new()),
        (1, [_]) => vec![&map.data[..]],
        (_, [r, k]) if *r == n => map.data.chunks(*k.max(&1)).take(n).collect(),
        _ => return Err(format!("the sizes table has shape {:?} for {n} dimensions", map.shape)),
    };
    let mut out = Vec::with_capacity(n);
    for (d, row) in rows.iter().enumerate() {
        let present = row.iter().take_while(|x| x.is_some()).count();
        if row[present..].iter().any(Option::is_some) {
            return Err(format!("sizes of dimension {d} have a gap"));
        }
        let mut sizes = Vec::with_capacity(present);
        let mut sum: u128 = 0;
        for x in row.iter().take(present).flatten() {
            let s = usize::try_from(*x).map_err(|_| format!("negative or huge fragment size {x}"))?;
            sum += s as u128;
            sizes.push(s);
        }
        // A dimension of length 0 (an unlimited one not written yet) may
        // have no fragment along it.
        if (sizes.is_empty() && shape[d] != 0) || sum != shape[d] as u128 {
            return Err(format!(
                "fragment sizes of dimension {d} sum to {sum}, not its length {}",
                shape[d]
            ));
        }
        out.push(sizes);
    }
    Ok(out)
}

/// Whether a table's shape is the fragment grid (or the grid plus a
/// trailing dimension of alternatives when `alternatives`); a scalar or
/// one-value table stands for a grid of one fragment.
fn check_table_shape(shape: &[usize], grid: &[usize], alternatives: bool, name: &str) -> Result<(), String> {
    let ok = shape == grid
        || (alternatives && shape.len() == grid.len() + 1 && shape[..grid.len()] == *grid)
        || (grid.iter().product::<usize>() == 1 && shape.iter().product::<usize>() == 1);
    if ok {
        Ok(())
    } else {
        Err(format!(
            "table {name} has shape {shape:?}, the fragment grid is {grid:?}"
        ))
    }
}

/// The first present entry of each group of `alt` alternatives.
fn first_present(data: Vec<Option<String>>, alt: usize) -> Vec<Option<String>> {
    if alt <= 1 {
        return data;
    }
    data.chunks(alt).map(|c| c.iter().flatten().next().cloned()).collect()
}

/// Fragments that name datasets (`uris`/`location`/`file` with identifiers).
fn dataset_fragments(
    encoding: Encoding,
    roles: &Roles,
    grid: &[usize],
    total: usize,
    t: &mut dyn Tables,
) -> Result<Vec<Fragment>, String> {
    let cfa = encoding == Encoding::Cfa062;
    let per_fragment = |tab: Table<Option<String>>, name: &str| -> Result<Vec<Option<String>>, String> {
        check_table_shape(&tab.shape, grid, cfa, name)?;
        let alt = if tab.shape.len() == grid.len() + 1 && cfa {
            tab.shape.last().copied().unwrap_or(1)
        } else {
            1
        };
        let mut v = first_present(tab.data, alt);
        if v.len() == 1 && total != 1 {
            v = vec![v[0].clone(); total];
        }
        Ok(v)
    };
    let uris = match &roles.uris {
        Some(u) => {
            let mut v = per_fragment(t.strings(u)?, u)?;
            if cfa && let Some(subs) = t.text_att(u, "substitutions") {
                let pairs = parse_terms(&subs).ok_or("substitutions is not a list of `${name}: value`")?;
                for s in v.iter_mut().flatten() {
                    for (k, val) in &pairs {
                        *s = s.replace(k.as_str(), val);
                    }
                }
            }
            v
        }
        None => vec![None; total],
    };
    let idents = match &roles.identifiers {
        Some(a) => {
            let tab = t.strings(a)?;
            // A scalar identifier is the same for every fragment.
            if tab.shape.is_empty() || (tab.data.len() == 1 && !cfa) {
                vec![tab.data.into_iter().next().flatten(); total]
            } else {
                per_fragment(tab, a)?
            }
        }
        None => vec![None; total],
    };
    if uris.len() != total || idents.len() != total {
        return Err("table sizes differ from the fragment grid".into());
    }
    let mut out = Vec::with_capacity(total);
    for (u, i) in uris.into_iter().zip(idents) {
        out.push(match (u, i) {
            (Some(uri), Some(identifier)) => Fragment::Dataset {
                uri: Some(uri),
                identifier,
            },
            // A CFA-0.6.2 fragment without a file: a variable of the master.
            (None, Some(identifier)) if cfa => Fragment::Dataset { uri: None, identifier },
            (None, None) if cfa => Fragment::Missing,
            (Some(_), None) if cfa => return Err("a fragment file without an address".into()),
            _ => return Err("a fragment without a dataset or identifier".into()),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Tables given in memory.
    #[derive(Default)]
    struct Mem {
        dims: HashMap<String, usize>,
        ints: HashMap<String, Table<Option<i64>>>,
        strings: HashMap<String, Table<Option<String>>>,
        values: HashMap<String, Table<Option<Vec<u8>>>>,
        atts: HashMap<(String, String), String>,
    }

    impl Tables for Mem {
        fn dim_len(&mut self, name: &str) -> Option<usize> {
            self.dims.get(name).copied()
        }
        fn ints(&mut self, var: &str) -> Result<Table<Option<i64>>, String> {
            self.ints.get(var).cloned().ok_or_else(|| format!("no {var}"))
        }
        fn strings(&mut self, var: &str) -> Result<Table<Option<String>>, String> {
            self.strings.get(var).cloned().ok_or_else(|| format!("no {var}"))
        }
        fn values(&mut self, var: &str) -> Result<Table<Option<Vec<u8>>>, String> {
            self.values.get(var).cloned().ok_or_else(|| format!("no {var}"))
        }
        fn text_att(&mut self, var: &str, att: &str) -> Option<String> {
            self.atts.get(&(var.to_string(), att.to_string())).cloned()
        }
        fn exists(&mut self, var: &str) -> bool {
            self.ints.contains_key(var) || self.strings.contains_key(var) || self.values.contains_key(var)
        }
    }

    fn atts(dims: &str, data: &str) -> AggAtts {
        AggAtts {
            aggregated_dimensions: Some(dims.into()),
            aggregated_data: Some(data.into()),
            ..AggAtts::default()
        }
    }

    fn terms(a: &AggAtts) -> (Encoding, Vec<String>, Roles) {
        match detect(a) {
            Some(Detected::Terms { encoding, dims, roles }) => (encoding, dims, roles),
            other => panic!("{other:?}"),
        }
    }

    fn strs(shape: &[usize], v: &[&str]) -> Table<Option<String>> {
        Table {
            shape: shape.to_vec(),
            data: v.iter().map(|s| (!s.is_empty()).then(|| s.to_string())).collect(),
        }
    }

    fn ints(shape: &[usize], v: &[Option<i64>]) -> Table<Option<i64>> {
        Table {
            shape: shape.to_vec(),
            data: v.to_vec(),
        }
    }

    /// A 2 x 2 grid over time(5) x lat(3): sizes [2, 3] and [1, 2].
    fn grid_tables() -> Mem {
        let mut m = Mem::default();
        m.dims.insert("time".into(), 5);
        m.dims.insert("lat".into(), 3);
        m.ints
            .insert("fmap".into(), ints(&[2, 2], &[Some(2), Some(3), Some(1), Some(2)]));
        m.strings
            .insert("furis".into(), strs(&[2, 2], &["a.nc", "b.nc", "c.zarr", "d.nc"]));
        m.strings.insert("fid".into(), strs(&[], &["/tas"]));
        m
    }

    fn ds(uri: &str, id: &str) -> Fragment {
        Fragment::Dataset {
            uri: Some(uri.into()),
            identifier: id.into(),
        }
    }

    #[test]
    fn terms_parse_in_both_spellings() {
        assert_eq!(
            parse_terms("map: m uris:u  identifiers: i"),
            Some(vec![
                ("map".into(), "m".into()),
                ("uris".into(), "u".into()),
                ("identifiers".into(), "i".into())
            ])
        );
        assert_eq!(parse_terms("map: uris: u"), None);
        assert_eq!(parse_terms("map m"), None);
        assert_eq!(parse_terms(""), None);
        assert_eq!(parse_terms("map:"), None);
    }

    #[test]
    fn cf_1_13_uris() {
        let (e, dims, roles) = terms(&atts("time lat", "map: fmap uris: furis identifiers: fid"));
        assert_eq!(e, Encoding::Cf113);
        assert_eq!(roles.tables(), vec!["fmap", "furis", "fid"]);
        let a = describe(e, &dims, &roles, &mut grid_tables()).unwrap();
        assert_eq!(a.shape, vec![5, 3]);
        assert_eq!(a.sizes, vec![vec![2, 3], vec![1, 2]]);
        assert_eq!(
            a.fragments,
            vec![
                ds("a.nc", "/tas"),
                ds("b.nc", "/tas"),
                ds("c.zarr", "/tas"),
                ds("d.nc", "/tas")
            ]
        );
        assert_eq!(a.grid(), vec![2, 2]);
    }

    #[test]
    fn cf_1_13_terms_are_case_sensitive_and_exact() {
        // Upper-case CF terms are no CF encoding (nor CFA: no location).
        assert!(matches!(
            detect(&atts("t", "MAP: m URIS: u IDENTIFIERS: i")),
            Some(Detected::Invalid(_))
        ));
        // uris without identifiers is no combination.
        assert!(matches!(
            detect(&atts("t", "map: m uris: u")),
            Some(Detected::Invalid(_))
        ));
        assert!(matches!(
            detect(&atts("t", "map: m map: n")),
            Some(Detected::Invalid(_))
        ));
        // One attribute without the other.
        let mut a = atts("t", "");
        a.aggregated_data = None;
        assert!(matches!(detect(&a), Some(Detected::Invalid(_))));
        assert_eq!(detect(&AggAtts::default()), None);
    }

    #[test]
    fn cf_1_13_unique_values_with_missing() {
        let (e, dims, roles) = terms(&atts("time lat", "map: fmap unique_values: uv"));
        assert_eq!((e, roles.values.as_deref()), (Encoding::Cf113, Some("uv")));
        let mut m = grid_tables();
        let v = |x: f32| Some(x.to_ne_bytes().to_vec());
        m.values.insert(
            "uv".into(),
            Table {
                shape: vec![2, 2],
                data: vec![v(1.5), None, v(-2.0), v(0.0)],
            },
        );
        let a = describe(e, &dims, &roles, &mut m).unwrap();
        assert_eq!(
            a.fragments,
            vec![
                Fragment::Constant(1.5f32.to_ne_bytes().to_vec()),
                Fragment::Missing,
                Fragment::Constant((-2.0f32).to_ne_bytes().to_vec()),
                Fragment::Constant(0.0f32.to_ne_bytes().to_vec()),
            ]
        );
    }

    #[test]
    fn the_drafts() {
        let (e, dims, roles) = terms(&atts("time lat", "shape: fmap location: furis address: fid"));
        assert_eq!(e, Encoding::CfDraft2024);
        assert_eq!(
            describe(e, &dims, &roles, &mut grid_tables()).unwrap().fragments.len(),
            4
        );
        let (e, dims, roles) = terms(&atts("time lat", "map: fmap location: furis identifier: fid"));
        assert_eq!(e, Encoding::CfDraft2025);
        let a = describe(e, &dims, &roles, &mut grid_tables()).unwrap();
        assert_eq!(a.fragments[2], ds("c.zarr", "/tas"));
        let (e, _, roles) = terms(&atts("time", "map: fmap unique_value: v"));
        assert_eq!((e, roles.values.as_deref()), (Encoding::CfDraft2025, Some("v")));
        let (e, _, roles) = terms(&atts("time", "shape: s value: v"));
        assert_eq!((e, roles.values.as_deref()), (Encoding::CfDraft2024, Some("v")));
    }

    #[test]
    fn cfa_0_6_2_missing_alternatives_substitutions() {
        let (e, dims, roles) = terms(&atts("time lat", "Location: fmap File: ff Format: fmt Address: fa"));
        assert_eq!(e, Encoding::Cfa062);
        let mut m = grid_tables();
        // Two alternatives per fragment: the first present one is taken.
        m.strings.insert(
            "ff".into(),
            strs(
                &[2, 2, 2],
                &["${base}/a.nc", "x.nc", "", "${base}/b2.nc", "", "", "", ""],
            ),
        );
        m.strings
            .insert("fa".into(), strs(&[2, 2], &["tas", "tas", "", "inmaster"]));
        m.atts
            .insert(("ff".into(), "substitutions".into()), "${base}: /data".into());
        let a = describe(e, &dims, &roles, &mut m).unwrap();
        assert_eq!(
            a.fragments,
            vec![
                ds("/data/a.nc", "tas"),
                ds("/data/b2.nc", "tas"),
                Fragment::Missing,
                Fragment::Dataset {
                    uri: None,
                    identifier: "inmaster".into()
                },
            ]
        );
    }

    #[test]
    fn one_dimension_and_scalar_forms() {
        let mut m = Mem::default();
        m.dims.insert("t".into(), 7);
        m.ints.insert("m1".into(), ints(&[3], &[Some(3), Some(4), None]));
        m.strings.insert("u".into(), strs(&[2], &["x", "y"]));
        m.strings.insert("i".into(), strs(&[2], &["v", "w"]));
        let (e, dims, roles) = terms(&atts("t", "map: m1 uris: u identifiers: i"));
        let a = describe(e, &dims, &roles, &mut m).unwrap();
        assert_eq!(a.sizes, vec![vec![3, 4]]);
        assert_eq!(a.fragments, vec![ds("x", "v"), ds("y", "w")]);
        // Scalar aggregated data: one fragment.
        m.ints.insert("m0".into(), ints(&[], &[Some(1)]));
        m.strings.insert("u0".into(), strs(&[], &["x"]));
        let (e, dims, roles) = terms(&atts("", "map: m0 uris: u0 identifiers: i"));
        m.strings.insert("i".into(), strs(&[], &["v"]));
        let a = describe(e, &dims, &roles, &mut m).unwrap();
        assert_eq!((a.shape.len(), a.fragments.len()), (0, 1));
    }

    #[test]
    fn empty_dimensions_and_zero_size_fragments() {
        let (e, dims, roles) = terms(&atts("time lat", "map: fmap uris: furis identifiers: fid"));
        // time of length 0, no fragment along it: a grid of none, the
        // other tables not looked at.
        let mut m = grid_tables();
        m.dims.insert("time".into(), 0);
        m.ints
            .insert("fmap".into(), ints(&[2, 2], &[None, None, Some(1), Some(2)]));
        m.strings.clear();
        let a = describe(e, &dims, &roles, &mut m).unwrap();
        assert_eq!((a.sizes.clone(), a.fragments.len()), (vec![vec![], vec![1, 2]], 0));
        // A zero-size fragment among others.
        let mut m = grid_tables();
        m.ints.insert(
            "fmap".into(),
            ints(&[2, 3], &[Some(2), Some(0), Some(3), Some(1), Some(2), None]),
        );
        m.strings.insert(
            "furis".into(),
            strs(&[3, 2], &["a.nc", "b.nc", "c.nc", "d.nc", "e.nc", "f.nc"]),
        );
        let a = describe(e, &dims, &roles, &mut m).unwrap();
        assert_eq!(
            (a.sizes.clone(), a.fragments.len()),
            (vec![vec![2, 0, 3], vec![1, 2]], 6)
        );
        // No fragment along a dimension that is not empty: refused.
        let mut m = grid_tables();
        m.ints
            .insert("fmap".into(), ints(&[2, 2], &[None, None, Some(1), Some(2)]));
        assert!(describe(e, &dims, &roles, &mut m).unwrap_err().contains("sum"));
        // Sizes of an empty dimension that are not all zero: refused.
        let mut m = grid_tables();
        m.dims.insert("time".into(), 0);
        m.ints
            .insert("fmap".into(), ints(&[2, 2], &[Some(0), Some(1), Some(1), Some(2)]));
        assert!(describe(e, &dims, &roles, &mut m).unwrap_err().contains("sum"));
    }

    fn cfa04(json: &str) -> Result<Aggregation, String> {
        let dims = vec!["time".to_string(), "lat".to_string()];
        describe_cfa04(&dims, json, &mut |d| match d {
            "time" => Some(5),
            "lat" => Some(3),
            _ => None,
        })
    }

    #[test]
    fn cfa_0_4_partitions() {
        // S3netCDF4's form: inclusive locations (shape says so), a missing
        // partition whose sizes come from its neighbours, a base.
        let a = cfa04(
            r#"{"base": "/d", "pmshape": [3, 1], "pmdimensions": ["time", "lat"], "Partitions": [
              {"index": [0, 0], "location": [[0, 1], [0, 2]],
               "subarray": {"ncvar": "tas", "file": "a.nc", "format": "NETCDF4", "shape": [2, 3]}},
              {"index": [2, 0], "location": [[4, 4], [0, 2]],
               "subarray": {"ncvar": "tas", "file": "s3://b/c.nc", "shape": [1, 3]}}]}"#,
        )
        .unwrap();
        assert_eq!(a.encoding, Encoding::Cfa04);
        assert_eq!(a.sizes, vec![vec![2, 2, 1], vec![3]]);
        assert_eq!(
            a.fragments,
            vec![ds("/d/a.nc", "tas"), Fragment::Missing, ds("s3://b/c.nc", "tas")]
        );
        // NCA's form: exclusive locations, index along pmdimensions only,
        // no shape; a partition without a file is in the master.
        let a = cfa04(
            r#"{"pmshape": [2], "pmdimensions": ["time"], "Partitions": [
              {"index": [1], "location": [[3, 5], [0, 3]], "data": {"ncvar": "t2", "file": "x.nc"}},
              {"index": [0], "location": [[0, 3], [0, 3]], "data": {"ncvar": "priv"}}]}"#,
        )
        .unwrap();
        assert_eq!(a.sizes, vec![vec![3, 2], vec![3]]);
        assert_eq!(
            a.fragments,
            vec![
                Fragment::Dataset {
                    uri: None,
                    identifier: "priv".into()
                },
                ds("x.nc", "t2")
            ]
        );
    }

    #[test]
    fn hostile_cfa_0_4_is_refused() {
        let part = |idx: &str, loc: &str| {
            format!(r#"{{"index": {idx}, "location": {loc}, "subarray": {{"ncvar": "v", "file": "f.nc"}}}}"#)
        };
        let doc = |pm: &str, parts: &[String]| format!(r#"{{"pmshape": {pm}, "Partitions": [{}]}}"#, parts.join(","));
        for (json, why) in [
            ("not json".to_string(), "JSON"),
            ("[1, 2]".to_string(), "pmshape"),
            // Two missing partitions in a row: where they meet is unknown.
            (doc("[3, 1]", &[part("[0, 0]", "[[0, 1], [0, 2]]")]), "without sizes"),
            (doc("[1, 1]", &[part("[0, 0]", "[[0, 3], [0, 2]]")]), "disagrees"),
            (doc("[1, 1]", &[part("[1, 0]", "[[0, 4], [0, 2]]")]), "outside"),
            (
                doc(
                    "[1, 1]",
                    &[part("[0, 0]", "[[0, 4], [0, 2]]"), part("[0, 0]", "[[0, 4], [0, 2]]")],
                ),
                "partitions for a grid",
            ),
            (doc("[1, 1]", &[part("[0, 0]", "[[0, 4]]")]), "location"),
            (doc("[1, 1]", &[part("[0, 0]", "[[4, 0], [0, 2]]")]), "ends before"),
            (doc("[1, 1]", &[part("[0, 0]", "[[0, -4], [0, 2]]")]), "non-integer"),
            (doc("[2000000, 2]", &[]), "too many"),
            (doc("[1]", &[]), "pmdimensions"),
            (
                doc("[1, 1]", &[part("[0, 0]", "[[0, 18446744073709551615], [0, 2]]")]),
                "too large",
            ),
        ] {
            let e = cfa04(&json).unwrap_err();
            assert!(e.contains(why), "{json}: {e}");
        }
        // Deep nesting stops in the JSON parser, not in a stack overflow.
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(cfa04(&deep).unwrap_err().contains("JSON"));
    }

    #[test]
    fn hostile_tables_are_refused() {
        let (e, dims, roles) = terms(&atts("time lat", "map: fmap uris: furis identifiers: fid"));
        let bad = |fmap: Table<Option<i64>>| {
            let mut m = grid_tables();
            m.ints.insert("fmap".into(), fmap);
            describe(e, &dims, &roles, &mut m).unwrap_err()
        };
        // Sums wrong.
        assert!(bad(ints(&[2, 2], &[Some(2), Some(2), Some(1), Some(2)])).contains("sum"));
        // Negative sizes (summing right).
        assert!(bad(ints(&[2, 2], &[Some(6), Some(-1), Some(1), Some(2)])).contains("negative"));
        // Huge sizes.
        assert!(bad(ints(&[2, 2], &[Some(i64::MAX), Some(i64::MAX), Some(1), Some(2)])).contains("sum"));
        // A gap in a row.
        assert!(bad(ints(&[2, 3], &[Some(2), None, Some(3), Some(1), Some(2), None])).contains("gap"));
        // Wrong table shape.
        assert!(bad(ints(&[3, 2], &[Some(2), Some(3), Some(1), Some(2), None, None])).contains("shape"));
        // A grid of too many fragments: 2^21 fragments of size 1.
        let mut m = grid_tables();
        let n = 1usize << 21;
        m.dims.insert("time".into(), n);
        m.dims.insert("lat".into(), 1);
        let mut data = vec![Some(1i64); n];
        data.extend(std::iter::once(Some(1)).chain(std::iter::repeat_n(None, n - 1)));
        m.ints.insert("fmap".into(), ints(&[2, n], &data));
        assert!(describe(e, &dims, &roles, &mut m).unwrap_err().contains("too many"));
        // uris of the wrong shape; a missing uri in CF-1.13; a missing dimension.
        let mut m = grid_tables();
        m.strings.insert("furis".into(), strs(&[4], &["a", "b", "c", "d"]));
        assert!(describe(e, &dims, &roles, &mut m).unwrap_err().contains("shape"));
        let mut m = grid_tables();
        m.strings.insert("furis".into(), strs(&[2, 2], &["a", "", "c", "d"]));
        assert!(describe(e, &dims, &roles, &mut m).is_err());
        let mut m = grid_tables();
        m.dims.remove("lat");
        assert!(describe(e, &dims, &roles, &mut m).unwrap_err().contains("lat"));
    }

    #[test]
    fn cfa_0_4_and_the_group_form_are_told_apart() {
        let base = AggAtts {
            cf_role: Some("cfa_variable".into()),
            cfa_dimensions: Some("time lat".into()),
            ..AggAtts::default()
        };
        let a = AggAtts {
            cfa_dimensions: None,
            cfa_array: Some("{}".into()),
            ..base.clone()
        };
        assert!(matches!(detect(&a), Some(Detected::Invalid(_))));
        let a = AggAtts {
            cfa_group: Some(" cfa_tas ".into()),
            ..base.clone()
        };
        assert_eq!(
            detect(&a),
            Some(Detected::CfaGroup {
                dims: vec!["time".into(), "lat".into()],
                group: "cfa_tas".into()
            })
        );
        let a = AggAtts {
            cfa_group: Some("cfa_tas".into()),
            cfa_array: Some("{}".into()),
            ..base.clone()
        };
        assert!(matches!(detect(&a), Some(Detected::Invalid(_))));
        let a = AggAtts {
            cfa_dimensions: None,
            cfa_group: Some("cfa_tas".into()),
            ..base
        };
        assert!(matches!(detect(&a), Some(Detected::Invalid(_))));
    }

    /// S3netCDF4's group form of a 5 x 3 `tas`: three partitions along
    /// time (sizes 2, 2, 1), the middle one not written.
    fn group_tables() -> Mem {
        let mut m = Mem::default();
        let none = [None, None];
        m.strings.insert("ncvar".into(), strs(&[3, 1], &["tas", "", "tas"]));
        m.strings
            .insert("file".into(), strs(&[3, 1], &["a.nc", "", "s3://b/c.zarr"]));
        m.strings
            .insert("format".into(), strs(&[3, 1], &["NETCDF4", "", "NETCDF4"]));
        m.strings.insert("pmdimensions".into(), strs(&[], &["time, lat"]));
        m.ints.insert("pmshape".into(), ints(&[2], &[Some(3), Some(1)]));
        let mut loc = vec![Some(0), Some(2), Some(0), Some(3)];
        loc.extend([None; 4]);
        loc.extend([Some(4), Some(5), Some(0), Some(3)]);
        m.ints.insert("location".into(), ints(&[3, 1, 2, 2], &loc));
        let rows = |a: [Option<i64>; 2], b: [Option<i64>; 2]| [a, none, b].concat();
        m.ints.insert(
            "index".into(),
            ints(&[3, 1, 2], &rows([Some(0), Some(0)], [Some(2), Some(0)])),
        );
        m.ints.insert(
            "shape".into(),
            ints(&[3, 1, 2], &rows([Some(2), Some(3)], [Some(1), Some(3)])),
        );
        m
    }

    fn cfa_group(m: &mut Mem) -> Result<Aggregation, String> {
        let dims = vec!["time".to_string(), "lat".to_string()];
        let mut len = |d: &str| match d {
            "time" => Some(5),
            "lat" => Some(3),
            _ => None,
        };
        describe_cfa_group(&dims, &mut len, m)
    }

    #[test]
    fn the_group_form_reads_as_cfa_0_4() {
        let a = cfa_group(&mut group_tables()).unwrap();
        assert_eq!(a.encoding, Encoding::S3Netcdf4);
        assert_eq!(a.sizes, vec![vec![2, 2, 1], vec![3]]);
        assert_eq!(
            a.fragments,
            vec![ds("a.nc", "tas"), Fragment::Missing, ds("s3://b/c.zarr", "tas")]
        );
        // The optional tables may be absent; a base prefixes relative files.
        let mut m = group_tables();
        for t in ["index", "shape", "pmshape"] {
            m.ints.remove(t);
        }
        m.strings.remove("pmdimensions");
        m.strings.insert("base".into(), strs(&[], &["/d/"]));
        let a = cfa_group(&mut m).unwrap();
        assert_eq!(
            a.fragments,
            vec![ds("/d/a.nc", "tas"), Fragment::Missing, ds("s3://b/c.zarr", "tas")]
        );
    }

    #[test]
    fn hostile_group_forms_are_refused() {
        fn set(m: &mut Mem, name: &str, at: usize, v: Option<i64>) {
            m.ints.get_mut(name).unwrap().data[at] = v;
        }
        type Edit = Box<dyn Fn(&mut Mem)>;
        let cases: Vec<(Edit, &str)> = vec![
            // The last partition ends past the dimension: they do not tile.
            (
                Box::new(|m| {
                    set(m, "location", 8, Some(5));
                    set(m, "location", 9, Some(6));
                }),
                "disagrees",
            ),
            // Two written partitions that overlap.
            (
                Box::new(|m| {
                    m.strings.insert("ncvar".into(), strs(&[3, 1], &["tas", "tas", "tas"]));
                    m.strings
                        .insert("file".into(), strs(&[3, 1], &["a.nc", "m.nc", "c.nc"]));
                    for (k, v) in [1, 4, 0, 3].into_iter().enumerate() {
                        set(m, "location", 4 + k, Some(v));
                    }
                }),
                "disagrees",
            ),
            // An index that is not the partition's place, one out of range.
            (Box::new(|m| set(m, "index", 4, Some(1))), "outside"),
            (Box::new(|m| set(m, "index", 4, Some(7))), "outside"),
            (Box::new(|m| set(m, "location", 0, Some(-1))), "negative"),
            (Box::new(|m| set(m, "location", 2, None)), "missing"),
            (
                Box::new(|m| {
                    set(m, "location", 9, Some(i64::MAX));
                    set(m, "shape", 4, Some(i64::MAX - 4));
                }),
                "disagrees",
            ),
            (Box::new(|m| set(m, "pmshape", 0, Some(4))), "pmshape"),
            // A subarray shape that is not the location's.
            (Box::new(|m| set(m, "shape", 0, Some(3))), "differ"),
            (
                Box::new(|m| {
                    m.strings.insert("file".into(), strs(&[3, 1], &["a.nc", "", ""]));
                }),
                "without a file",
            ),
            (
                Box::new(|m| {
                    m.strings.insert("pmdimensions".into(), strs(&[], &["lat, time"]));
                }),
                "pmdimensions",
            ),
        ];
        for (k, (edit, why)) in cases.into_iter().enumerate() {
            let mut m = group_tables();
            edit(&mut m);
            let e = cfa_group(&mut m).unwrap_err();
            assert!(e.contains(why), "case {k}: {e}");
        }
        // Tables of the wrong shape, or missing.
        let mut m = group_tables();
        m.ints.insert("location".into(), ints(&[3, 1, 2], &[Some(0); 6]));
        assert!(cfa_group(&mut m).unwrap_err().contains("shape"));
        let mut m = group_tables();
        m.ints.remove("location");
        assert!(cfa_group(&mut m).unwrap_err().contains("no location"));
        let mut m = group_tables();
        m.strings.insert("ncvar".into(), strs(&[3], &["tas", "", "tas"]));
        assert!(cfa_group(&mut m).unwrap_err().contains("dimensions"));
        // Two missing partitions in a row leave their boundary unknown.
        let mut m = group_tables();
        m.strings.insert("ncvar".into(), strs(&[3, 1], &["tas", "", ""]));
        assert!(cfa_group(&mut m).unwrap_err().contains("without sizes"));
    }
}
