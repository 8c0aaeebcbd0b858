//! Every `extern "C"` function defined under `src/ffi/` is one
//! `ffi_boundary!` invocation and nothing else: a panic cannot cross into C
//! from any export, delegated calls included (`forward!` is used only inside
//! the boundary macro), and no ffi file defines its own `NC_E*` code.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Index just past the comment, string or char literal starting at `i`, or
/// `None` when `i` starts none of them (lifetimes are not literals).
fn skip_literal(b: &[u8], i: usize) -> Option<usize> {
    let at = |k: usize| b.get(k).copied().unwrap_or(0);
    match (at(i), at(i + 1)) {
        (b'/', b'/') => Some(b[i..].iter().position(|&c| c == b'\n').map_or(b.len(), |n| i + n)),
        (b'/', b'*') => {
            let mut k = i + 2;
            while k + 1 < b.len() && !(b[k] == b'*' && b[k + 1] == b'/') {
                k += 1;
            }
            Some(k + 2)
        }
        (b'r', b'"') | (b'r', b'#') if i == 0 || !at(i - 1).is_ascii_alphanumeric() => {
            let mut k = i + 1;
            let mut hashes = 0;
            while at(k) == b'#' {
                hashes += 1;
                k += 1;
            }
            if at(k) != b'"' {
                return None;
            }
            k += 1;
            loop {
                if k >= b.len() {
                    return Some(k);
                }
                if b[k] == b'"' && (1..=hashes).all(|h| at(k + h) == b'#') {
                    return Some(k + 1 + hashes);
                }
                k += 1;
            }
        }
        (b'"', _) => {
            let mut k = i + 1;
            while k < b.len() && b[k] != b'"' {
                k += if b[k] == b'\\' { 2 } else { 1 };
            }
            Some(k + 1)
        }
        (b'\'', b'\\') => {
            let mut k = i + 2;
            while k < b.len() && b[k] != b'\'' {
                k += 1;
            }
            Some(k + 1)
        }
        (b'\'', _) if at(i + 2) == b'\'' => Some(i + 3),
        _ => None,
    }
}

/// Index of the bracket closing the one at `open` (`(`, `{` or `[`).
fn matching(b: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    let mut i = open;
    while i < b.len() {
        if let Some(next) = skip_literal(b, i) {
            i = next;
            continue;
        }
        match b[i] {
            b'(' | b'{' | b'[' => depth += 1,
            b')' | b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
        i += 1;
    }
    panic!("unbalanced brackets");
}

/// Skip blanks and comments from `i`.
fn skip_blank(b: &[u8], mut i: usize) -> usize {
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        match skip_literal(b, i) {
            Some(n) if b[i] == b'/' => i = n,
            _ => return i,
        }
    }
}

/// The `extern "C" fn` definitions of a source text whose body is not one
/// `ffi_boundary!(...)` invocation, and how many definitions there are.
fn unguarded(text: &str) -> (Vec<String>, usize) {
    let b = text.as_bytes();
    let mut bad = Vec::new();
    let mut count = 0;
    let mut i = 0;
    while i < b.len() {
        if let Some(next) = skip_literal(b, i) {
            i = next;
            continue;
        }
        if !text[i..].starts_with("extern \"C\" fn ") {
            i += 1;
            continue;
        }
        let name_start = i + "extern \"C\" fn ".len();
        let rest = &text[name_start..];
        let name_len = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
            .unwrap_or(0);
        let name = &rest[..name_len];
        let after = skip_blank(b, name_start + name_len);
        if name.is_empty() || b[after] != b'(' {
            // A function-pointer type such as `unsafe extern "C" fn(c_int)`.
            i = name_start;
            continue;
        }
        count += 1;
        let params_end = matching(b, after);
        let body_open = params_end + text[params_end..].find('{').unwrap();
        let body_close = matching(b, body_open);
        let first = skip_blank(b, body_open + 1);
        let ok = text[first..].starts_with("ffi_boundary!") && {
            let open = skip_blank(b, first + "ffi_boundary!".len());
            b[open] == b'(' && {
                let close = matching(b, open);
                skip_blank(b, close + 1) == body_close
            }
        };
        if !ok {
            bad.push(name.to_string());
        }
        i = body_close;
    }
    (bad, count)
}

#[test]
fn every_export_goes_through_the_boundary() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ffi");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut total = 0;
    let mut problems = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let (bad, n) = unguarded(&text);
        total += n;
        problems.extend(bad.into_iter().map(|name| format!("{}: {name}", f.display())));
        let rel = f.strip_prefix(&root).unwrap().to_string_lossy().into_owned();
        for (lineno, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if code.contains("const NC_E") {
                problems.push(format!("{rel}:{}: a local NC_E* code (use NcError)", lineno + 1));
            }
            // Defined in delegate.rs, invoked by ffi_boundary! in mod.rs only.
            if code.contains("forward!(") && rel != "delegate.rs" && rel != "mod.rs" {
                problems.push(format!("{rel}:{}: forward! outside ffi_boundary!", lineno + 1));
            }
            if code.contains("catch_unwind") && rel != "mod.rs" {
                problems.push(format!("{rel}:{}: a panic guard of its own", lineno + 1));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // Every export written out, each arm of the typed families once, and the
    // log hooks: a scan that finds fewer is broken, not the code.
    assert!(
        total >= 300,
        "only {total} extern \"C\" fn definitions found: the scan is broken"
    );
}

#[test]
fn the_scan_finds_what_it_must() {
    let guarded = "pub extern \"C\" fn a(x: c_int) -> c_int {\n    // why\n    ffi_boundary!(status { Ok(()) })\n}\n";
    assert_eq!(unguarded(guarded), (vec![], 1));
    let bare = "pub unsafe extern \"C\" fn b(p: *mut c_int) -> c_int {\n    unsafe { *p = 1 };\n    0\n}\n";
    assert_eq!(unguarded(bare), (vec!["b".to_string()], 1));
    let before = "extern \"C\" fn c() -> c_int {\n    if x() { return 1; }\n    ffi_boundary!(code { 0 })\n}\n";
    assert_eq!(unguarded(before), (vec!["c".to_string()], 1));
    let after = "extern \"C\" fn d() -> c_int {\n    ffi_boundary!(code { 0 });\n    1\n}\n";
    assert_eq!(unguarded(after), (vec!["d".to_string()], 1));
    let tricky = "type F = unsafe extern \"C\" fn(c_int) -> c_int;\nconst S: &str = \"extern \\\"C\\\" fn e() {}\";\n// extern \"C\" fn f() {}\nfn g() -> char { '{' }\n";
    assert_eq!(unguarded(tricky), (vec![], 0));
    let in_macro = "macro_rules! m { ($f:ident) => { pub extern \"C\" fn $f() -> c_int { 0 } }; }";
    assert_eq!(unguarded(in_macro), (vec!["$f".to_string()], 1));
}
