//! The JSON dialects metadata is written in.
//!
//! Zarr metadata is JSON, but two writers every dataset meets write a
//! little more than JSON:
//! - Python's `json` module (zarr-python, xarray, numcodecs) writes the bare
//!   words `NaN`, `Infinity` and `-Infinity` for non-finite floats;
//! - netcdf-c writes numbers as C reads and prints them (`1.`, `.5`, `+1`,
//!   `007`, `nan`, `inf`), keeping the spelling of a number it parsed (its
//!   test CDL `ref_jsonconvention.cdl` makes it write `[0.,0.,1.]`).
//!
//! This module reads that dialect: a lexer ([`skip_value`], [`members`]),
//! a rewrite into strict JSON for serde ([`to_strict`]: non-finite numbers
//! become the strings Zarr uses, `"NaN"`, `"Infinity"`, `"-Infinity"`), and
//! a tree that keeps the spelling of each number ([`parse`], [`Json`]) for
//! attribute values, whose type depends on whether a value was a bare number
//! or a string, and whose text netcdf-c shows as it was written.
//!
//! Everything else stays as strict as JSON: strings in double quotes with
//! JSON's escapes, no comments, no trailing commas, no bare words other than
//! numbers, `true`, `false` and `null`. Nesting is bounded by [`MAX_DEPTH`].
#![forbid(unsafe_code)]

use std::borrow::Cow;
use std::fmt;

/// The deepest nesting read: what serde_json's recursion limit (128) lets
/// it read, so that every text checked here also reads as strict JSON.
pub const MAX_DEPTH: usize = 127;

/// Why a text is not in the dialect, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// Byte offset of the problem.
    pub at: usize,
    pub what: &'static str,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{} at byte {}", self.what, self.at)
    }
}

impl std::error::Error for SyntaxError {}

type Result<T> = std::result::Result<T, SyntaxError>;

fn err<T>(at: usize, what: &'static str) -> Result<T> {
    Err(SyntaxError { at, what })
}

/// What a bare word is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Word {
    True,
    False,
    Null,
    /// An integer: digits with an optional sign, no point, no exponent.
    Int,
    /// A finite or overflowing decimal number with a point or an exponent.
    Float,
    /// NaN or an infinity, spelled out.
    NonFinite(f64),
    /// Not classified: a tolerant scan ([`members_tolerant`]) takes every
    /// word as it comes and leaves it to whoever reads the member.
    Invalid,
}

/// One token: its kind and the text it covers.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Tok<'t> {
    Open(u8),
    Close(u8),
    Colon,
    Comma,
    /// A string, quotes included.
    Str(&'t str),
    Word(&'t str, Word),
}

/// Bytes a bare word is made of (netcdf-c's `JSON_WORD`), as a table.
const WORD_BYTES: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'+' | b'-' | b'.');
        b += 1;
    }
    t
};

fn is_word_byte(b: u8) -> bool {
    WORD_BYTES[usize::from(b)]
}

/// Classify a bare word; None when it is no value of the dialect.
pub fn classify(w: &str) -> Option<Word> {
    // (The commonest word: a plain non-negative integer.)
    if !w.is_empty() && w.bytes().all(|c| c.is_ascii_digit()) {
        return Some(Word::Int);
    }
    match w {
        "true" => return Some(Word::True),
        "false" => return Some(Word::False),
        "null" => return Some(Word::Null),
        _ => {}
    }
    let (neg, body) = match w.as_bytes().first() {
        Some(b'-') => (true, &w[1..]),
        Some(b'+') => (false, &w[1..]),
        _ => (false, w),
    };
    if let Some(n) = Number::split(body) {
        return Some(if n.frac.is_none() && n.exp.is_none() {
            Word::Int
        } else {
            Word::Float
        });
    }
    // (netcdf-c also reads C's `nanf` and `infinityf`.)
    let is = |name: &str| body.eq_ignore_ascii_case(name);
    if is("nan") || is("nanf") {
        return Some(Word::NonFinite(f64::NAN));
    }
    if is("inf") || is("infinity") || is("infinityf") {
        return Some(Word::NonFinite(if neg { f64::NEG_INFINITY } else { f64::INFINITY }));
    }
    None
}

/// The parts of a decimal number as C reads it: digits, an optional point
/// with optional digits, an optional exponent; at least one digit.
struct Number<'t> {
    int: &'t str,
    frac: Option<&'t str>,
    exp: Option<&'t str>,
}

impl<'t> Number<'t> {
    /// Split an unsigned number; None when it is not one.
    fn split(s: &'t str) -> Option<Number<'t>> {
        let b = s.as_bytes();
        let digits = |from: usize| from + b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
        let int_end = digits(0);
        let mut pos = int_end;
        let mut frac = None;
        if b.get(pos) == Some(&b'.') {
            let end = digits(pos + 1);
            frac = Some(&s[pos + 1..end]);
            pos = end;
        }
        if int_end == 0 && frac.is_none_or(str::is_empty) {
            return None;
        }
        let mut exp = None;
        if matches!(b.get(pos), Some(b'e' | b'E')) {
            let mut start = pos + 1;
            if matches!(b.get(start), Some(b'+' | b'-')) {
                start += 1;
            }
            let end = digits(start);
            if end == start {
                return None;
            }
            exp = Some(&s[pos + 1..end]);
            pos = end;
        }
        (pos == s.len()).then_some(Number {
            int: &s[..int_end],
            frac,
            exp,
        })
    }
}

/// A bare number (`word`, classified as Int or Float) as strict JSON:
/// `+` dropped, leading zeros dropped, a digit on each side of the point.
fn strict_number(word: &str) -> Cow<'_, str> {
    let (neg, body) = match word.as_bytes().first() {
        Some(b'-') => (true, &word[1..]),
        Some(b'+') => (false, &word[1..]),
        _ => (false, word),
    };
    let Some(n) = Number::split(body) else {
        return Cow::Borrowed(word);
    };
    let int = n.int.trim_start_matches('0');
    let int = if int.is_empty() { "0" } else { int };
    let plain = !word.starts_with('+') && int.len() == n.int.len() && n.frac.is_none_or(|f| !f.is_empty());
    if plain {
        return Cow::Borrowed(word);
    }
    let mut s = String::with_capacity(word.len() + 2);
    if neg {
        s.push('-');
    }
    s.push_str(int);
    if let Some(f) = n.frac {
        s.push('.');
        s.push_str(if f.is_empty() { "0" } else { f });
    }
    if let Some(e) = n.exp {
        s.push('e');
        s.push_str(e);
    }
    Cow::Owned(s)
}

/// The value of a bare number classified as Int or Float (an integer
/// outside i128, or a float outside f64's range, as the float C reads).
fn number_value(word: &str, kind: Word) -> NumValue {
    let strict = strict_number(word);
    if kind == Word::Int
        && let Ok(i) = strict.parse::<i128>()
    {
        return NumValue::Int(i);
    }
    // Rust reads decimal text with correct rounding; beyond f64's range it
    // gives an infinity, as C's strtod does.
    NumValue::Float(strict.parse::<f64>().unwrap_or(f64::NAN))
}

struct Lexer<'t> {
    text: &'t str,
    pos: usize,
    /// Words that are no value are tokens (`Word::Invalid`), not errors.
    tolerant: bool,
}

impl<'t> Lexer<'t> {
    fn new(text: &'t str) -> Lexer<'t> {
        Lexer {
            text,
            pos: 0,
            tolerant: false,
        }
    }

    fn skip_ws(&mut self) {
        let b = self.text.as_bytes();
        while matches!(b.get(self.pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    /// The next token and where it starts; None at the end of the text.
    fn next(&mut self) -> Result<Option<(usize, Tok<'t>)>> {
        self.skip_ws();
        let b = self.text.as_bytes();
        let start = self.pos;
        let Some(&c) = b.get(start) else { return Ok(None) };
        let tok = match c {
            b'{' | b'[' => {
                self.pos += 1;
                Tok::Open(c)
            }
            b'}' | b']' => {
                self.pos += 1;
                Tok::Close(c)
            }
            b':' => {
                self.pos += 1;
                Tok::Colon
            }
            b',' => {
                self.pos += 1;
                Tok::Comma
            }
            b'"' => {
                self.pos = string_end(b, start)?;
                Tok::Str(&self.text[start..self.pos])
            }
            c if is_word_byte(c) => {
                let len = b[start..].iter().take_while(|&&c| is_word_byte(c)).count();
                self.pos += len;
                let w = &self.text[start..self.pos];
                if self.tolerant {
                    // (A tolerant scan only needs the word's extent; whoever
                    // reads the member classifies it.)
                    Tok::Word(w, Word::Invalid)
                } else {
                    match classify(w) {
                        Some(kind) => Tok::Word(w, kind),
                        None => return err(start, "not a JSON value"),
                    }
                }
            }
            _ => return err(start, "unexpected character"),
        };
        Ok(Some((start, tok)))
    }

    fn expect(&mut self) -> Result<(usize, Tok<'t>)> {
        let at = self.text.len();
        self.next()?.map_or_else(|| err(at, "unexpected end of text"), Ok)
    }
}

/// Where the string starting with the quote at `start` ends (after its
/// closing quote). Escapes are checked: JSON's, `\uXXXX` with four hex digits.
/// Raw control characters are accepted (netcdf-c writes them unescaped).
fn string_end(b: &[u8], start: usize) -> Result<usize> {
    let mut i = start + 1;
    loop {
        // (Most bytes are neither a quote nor a backslash.)
        i += b
            .get(i..)
            .map_or(0, |rest| rest.iter().take_while(|&&c| c != b'"' && c != b'\\').count());
        match b.get(i) {
            None => return err(start, "unterminated string"),
            Some(b'"') => return Ok(i + 1),
            Some(b'\\') => match b.get(i + 1) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 2,
                Some(b'u') => {
                    let hex = b.get(i + 2..i + 6).filter(|h| h.iter().all(u8::is_ascii_hexdigit));
                    if hex.is_none() {
                        return err(i, "bad \\u escape");
                    }
                    i += 6;
                }
                _ => return err(i, "bad escape"),
            },
            Some(_) => i += 1,
        }
    }
}

/// The text of a string token (quotes included), escapes decoded; borrowed
/// when it has none. A lone surrogate is an error.
pub fn decode_str(tok: &str) -> Result<Cow<'_, str>> {
    let inner = &tok[1..tok.len() - 1];
    if !inner.contains('\\') {
        return Ok(Cow::Borrowed(inner));
    }
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.char_indices();
    let hex4 = |at: usize| u32::from_str_radix(inner.get(at..at + 4).unwrap_or("x"), 16).ok();
    while let Some((i, c)) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some((_, e)) = chars.next() else {
            return err(i, "bad escape");
        };
        let ch = match e {
            '"' => '"',
            '\\' => '\\',
            '/' => '/',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'u' => {
                let hi = hex4(i + 2).ok_or(SyntaxError {
                    at: i,
                    what: "bad \\u escape",
                })?;
                for _ in 0..4 {
                    chars.next();
                }
                let code = if (0xD800..0xDC00).contains(&hi) {
                    // A high surrogate must be followed by `\u` and a low one.
                    let lo = (inner.get(i + 6..i + 8) == Some("\\u"))
                        .then(|| hex4(i + 8))
                        .flatten()
                        .filter(|lo| (0xDC00..0xE000).contains(lo))
                        .ok_or(SyntaxError {
                            at: i,
                            what: "lone surrogate in \\u escape",
                        })?;
                    for _ in 0..6 {
                        chars.next();
                    }
                    0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                } else {
                    hi
                };
                char::from_u32(code).ok_or(SyntaxError {
                    at: i,
                    what: "lone surrogate in \\u escape",
                })?
            }
            _ => return err(i, "bad escape"),
        };
        out.push(ch);
    }
    Ok(Cow::Owned(out))
}

/// After the opening of a container: the first token inside it.
enum Step {
    /// A value starts here.
    Value,
    /// The container was empty.
    Closed,
}

/// Read one complete value starting with `first`, checking its grammar and
/// that it nests at most `max_depth` containers (no recursion: a stack of
/// open containers).
fn finish_value<'t>(lx: &mut Lexer<'t>, first: (usize, Tok<'t>), max_depth: usize) -> Result<()> {
    let mut stack: Vec<u8> = Vec::new();
    let mut tok = first;
    loop {
        // `tok` starts a value.
        let step = match tok.1 {
            Tok::Open(c) => {
                if stack.len() == max_depth {
                    return err(tok.0, "nested too deeply");
                }
                stack.push(c);
                let next = lx.expect()?;
                if next.1 == Tok::Close(closing(c)) {
                    stack.pop();
                    Step::Closed
                } else {
                    if c == b'{' {
                        key_colon(lx, next)?;
                        tok = lx.expect()?;
                    } else {
                        tok = next;
                    }
                    Step::Value
                }
            }
            Tok::Str(_) | Tok::Word(..) => Step::Closed,
            _ => return err(tok.0, "expected a value"),
        };
        if let Step::Value = step {
            continue;
        }
        // A value ended: close containers until one continues.
        loop {
            let Some(&top) = stack.last() else { return Ok(()) };
            let (at, t) = lx.expect()?;
            match t {
                Tok::Comma => {
                    if top == b'{' {
                        let k = lx.expect()?;
                        key_colon(lx, k)?;
                    }
                    tok = lx.expect()?;
                    break;
                }
                Tok::Close(c) if c == closing(top) => {
                    stack.pop();
                }
                _ => return err(at, "expected ',' or the end of a container"),
            }
        }
    }
}

fn closing(open: u8) -> u8 {
    if open == b'{' { b'}' } else { b']' }
}

/// A member's key (a string token, given) and the colon after it.
fn key_colon<'t>(lx: &mut Lexer<'t>, key: (usize, Tok<'t>)) -> Result<&'t str> {
    let Tok::Str(k) = key.1 else {
        return err(key.0, "expected a string key");
    };
    match lx.expect()? {
        (_, Tok::Colon) => Ok(k),
        (at, _) => err(at, "expected ':'"),
    }
}

/// Check that `text` is exactly one value of the dialect (whitespace around it).
pub fn check(text: &str) -> Result<()> {
    let mut lx = Lexer::new(text);
    let first = lx.expect()?;
    finish_value(&mut lx, first, MAX_DEPTH)?;
    match lx.next()? {
        None => Ok(()),
        Some((at, _)) => err(at, "text after the value"),
    }
}

/// Byte range of the value in `text` that starts at or after `from`, checked.
pub fn skip_value(text: &str, from: usize) -> Result<std::ops::Range<usize>> {
    let mut lx = Lexer {
        text,
        pos: from,
        tolerant: false,
    };
    let first = lx.expect()?;
    let start = first.0;
    finish_value(&mut lx, first, MAX_DEPTH)?;
    Ok(start..lx.pos)
}

/// One member of an object: its key (escapes decoded) and its value's raw text.
pub type Member<'t> = (Cow<'t, str>, &'t str);

/// The members of the object `text` (nothing but the object and whitespace),
/// in document order, repeated keys included; each value checked and kept
/// as its raw text. At most `max` members.
pub fn members(text: &str, max: usize) -> Result<Vec<Member<'_>>> {
    // (The object itself is one level of nesting.)
    scan_members(Lexer::new(text), max, MAX_DEPTH - 1)
}

/// `members`, checking only the structure of each value: a member whose
/// value holds a word that is no value, or nests too deeply, is kept, and
/// fails when it is read. For attributes, where one value that cannot be
/// read must not take the others with it.
pub fn members_tolerant(text: &str, max: usize) -> Result<Vec<Member<'_>>> {
    let mut lx = Lexer::new(text);
    lx.tolerant = true;
    // (Nesting costs a byte of stack per level here, no recursion.)
    scan_members(lx, max, usize::MAX)
}

fn scan_members<'t>(lx: Lexer<'t>, max: usize, max_depth: usize) -> Result<Vec<Member<'t>>> {
    Ok(scan_object(lx, max, max_depth, None)?.0)
}

/// The members of the object `text` and, scanned in the same pass, the
/// members of its member `inner` when that is an object (the last, if the
/// key is repeated): consolidated metadata is one object of objects, read
/// once rather than twice. At most `max` members in either.
pub fn members_and_inner<'t>(
    text: &'t str,
    inner: &str,
    max: usize,
) -> Result<(Vec<Member<'t>>, Option<Vec<Member<'t>>>)> {
    scan_object(Lexer::new(text), max, MAX_DEPTH - 1, Some(inner))
}

fn scan_object<'t>(
    mut lx: Lexer<'t>,
    max: usize,
    max_depth: usize,
    inner: Option<&str>,
) -> Result<(Vec<Member<'t>>, Option<Vec<Member<'t>>>)> {
    match lx.expect()? {
        (_, Tok::Open(b'{')) => {}
        (at, _) => return err(at, "not a JSON object"),
    }
    let mut nested = None;
    let out = object_body(&mut lx, max, max_depth, |lx, key, first| {
        if inner != Some(key) {
            return finish_value(lx, first, max_depth);
        }
        if first.1 != Tok::Open(b'{') {
            nested = None;
            return finish_value(lx, first, max_depth);
        }
        let depth = max_depth.saturating_sub(1);
        nested = Some(object_body(lx, max, depth, |lx, _, first| {
            finish_value(lx, first, depth)
        })?);
        Ok(())
    })?;
    match lx.next()? {
        None => Ok((out, nested)),
        Some((at, _)) => err(at, "text after the object"),
    }
}

/// The members of an object whose `{` was read, up to its `}`: each key,
/// and the raw text of its value, which `value(lexer, key, first token)`
/// reads.
fn object_body<'t>(
    lx: &mut Lexer<'t>,
    max: usize,
    max_depth: usize,
    mut value: impl FnMut(&mut Lexer<'t>, &str, (usize, Tok<'t>)) -> Result<()>,
) -> Result<Vec<Member<'t>>> {
    let text = lx.text;
    let mut out = Vec::new();
    let mut tok = lx.expect()?;
    if tok.1 == Tok::Close(b'}') {
        return Ok(out);
    }
    if max_depth == 0 {
        return err(tok.0, "nested too deeply");
    }
    loop {
        if out.len() == max {
            return err(tok.0, "too many members");
        }
        let key = decode_str(key_colon(lx, tok)?)?;
        let first = lx.expect()?;
        let start = first.0;
        value(lx, &key, first)?;
        out.push((key, &text[start..lx.pos]));
        match lx.expect()? {
            (_, Tok::Comma) => tok = lx.expect()?,
            (_, Tok::Close(b'}')) => return Ok(out),
            (at, _) => return err(at, "expected ',' or '}'"),
        }
    }
}

/// `raw` (one value of the dialect) as strict JSON: bare NaN and infinities
/// become the strings `"NaN"`, `"Infinity"`, `"-Infinity"`; numbers that
/// overflow f64 become the infinity they read as; numbers in C's spelling
/// get JSON's; raw control characters in strings are escaped. Borrowed when
/// `raw` is strict JSON already. Structure is not checked here.
pub fn to_strict(raw: &str) -> Result<Cow<'_, str>> {
    let mut lx = Lexer::new(raw);
    let mut out: Option<String> = None;
    let mut copied = 0;
    while let Some((at, tok)) = lx.next()? {
        let replacement: Option<Cow<str>> = match tok {
            Tok::Word(_, Word::NonFinite(f)) => Some(Cow::Borrowed(non_finite_name(f))),
            Tok::Word(w, Word::Float) if may_overflow(w) && number_value(w, Word::Float).as_f64().is_infinite() => {
                Some(Cow::Borrowed(non_finite_name(number_value(w, Word::Float).as_f64())))
            }
            Tok::Word(w, Word::Int | Word::Float) => match strict_number(w) {
                Cow::Owned(s) => Some(Cow::Owned(s)),
                Cow::Borrowed(_) => None,
            },
            Tok::Str(s) if s.bytes().any(|b| b < 0x20) => {
                let mut e = String::with_capacity(s.len() + 8);
                for c in s.chars() {
                    if (c as u32) < 0x20 {
                        e.push_str(&format!("\\u{:04x}", c as u32));
                    } else {
                        e.push(c);
                    }
                }
                Some(Cow::Owned(e))
            }
            _ => None,
        };
        if let Some(r) = replacement {
            let o = out.get_or_insert_with(|| String::with_capacity(raw.len() + 16));
            o.push_str(&raw[copied..at]);
            o.push_str(&r);
            copied = lx.pos;
        }
    }
    Ok(match out {
        None => Cow::Borrowed(raw),
        Some(mut o) => {
            o.push_str(&raw[copied..]);
            Cow::Owned(o)
        }
    })
}

/// Whether a float's text may be beyond f64's range (an exponent, or more
/// digits than any finite f64 needs before its point).
fn may_overflow(w: &str) -> bool {
    w.len() > 300 || w.bytes().any(|b| b == b'e' || b == b'E')
}

/// The JSON string Zarr writes for a non-finite float (quotes included).
fn non_finite_name(f: f64) -> &'static str {
    if f.is_nan() {
        "\"NaN\""
    } else if f > 0.0 {
        "\"Infinity\""
    } else {
        "\"-Infinity\""
    }
}

/// A number's value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NumValue {
    Int(i128),
    Float(f64),
}

impl NumValue {
    pub fn as_f64(self) -> f64 {
        match self {
            NumValue::Int(i) => i as f64,
            NumValue::Float(f) => f,
        }
    }
}

/// A value of the dialect, numbers with the spelling they were written in.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    /// A bare number (NaN and the infinities included) and its text.
    Num(NumValue, String),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

/// Parse one value of the dialect (all of `text`).
pub fn parse(text: &str) -> Result<Json> {
    let mut lx = Lexer::new(text);
    let first = lx.expect()?;
    let v = tree(&mut lx, first, 0)?;
    match lx.next()? {
        None => Ok(v),
        Some((at, _)) => err(at, "text after the value"),
    }
}

fn tree<'t>(lx: &mut Lexer<'t>, tok: (usize, Tok<'t>), depth: usize) -> Result<Json> {
    Ok(match tok.1 {
        Tok::Word(_, Word::True) => Json::Bool(true),
        Tok::Word(_, Word::False) => Json::Bool(false),
        Tok::Word(_, Word::Null) => Json::Null,
        Tok::Word(w, Word::NonFinite(f)) => Json::Num(NumValue::Float(f), w.to_string()),
        Tok::Word(_, Word::Invalid) => return err(tok.0, "not a JSON value"),
        Tok::Word(w, kind) => Json::Num(number_value(w, kind), w.to_string()),
        Tok::Str(s) => Json::Str(decode_str(s)?.into_owned()),
        Tok::Open(c) => {
            if depth == MAX_DEPTH {
                return err(tok.0, "nested too deeply");
            }
            let mut next = lx.expect()?;
            if next.1 == Tok::Close(closing(c)) {
                return Ok(if c == b'{' {
                    Json::Obj(Vec::new())
                } else {
                    Json::Arr(Vec::new())
                });
            }
            let mut items = Vec::new();
            let mut members = Vec::new();
            loop {
                if c == b'{' {
                    let k = decode_str(key_colon(lx, next)?)?.into_owned();
                    let first = lx.expect()?;
                    members.push((k, tree(lx, first, depth + 1)?));
                } else {
                    items.push(tree(lx, next, depth + 1)?);
                }
                match lx.expect()? {
                    (_, Tok::Comma) => next = lx.expect()?,
                    (_, Tok::Close(e)) if e == closing(c) => break,
                    (at, _) => return err(at, "expected ',' or the end of a container"),
                }
            }
            if c == b'{' {
                Json::Obj(members)
            } else {
                Json::Arr(items)
            }
        }
        _ => return err(tok.0, "expected a value"),
    })
}

impl Json {
    /// Whether this is a scalar (not an array or object).
    pub fn is_atomic(&self) -> bool {
        !matches!(self, Json::Arr(_) | Json::Obj(_))
    }

    /// The value as strict JSON for serde (non-finite numbers as Zarr's strings).
    pub fn to_value(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Num(NumValue::Int(i), _) => {
                if let Ok(u) = u64::try_from(*i) {
                    Value::from(u)
                } else if let Ok(s) = i64::try_from(*i) {
                    Value::from(s)
                } else {
                    float_value(*i as f64)
                }
            }
            Json::Num(NumValue::Float(f), _) => float_value(*f),
            Json::Str(s) => Value::String(s.clone()),
            Json::Arr(a) => Value::Array(a.iter().map(Json::to_value).collect()),
            Json::Obj(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), v.to_value())).collect()),
        }
    }

    /// The text netcdf-c makes of a JSON value it shows as a text attribute
    /// (`NCJunparse`): `", "` and `": "` in objects, `","` in arrays,
    /// numbers as they were written, strings with netcdf-c's escapes.
    pub fn to_nc_text(&self) -> String {
        let mut s = String::new();
        self.write_nc(&mut s);
        s
    }

    fn write_nc(&self, s: &mut String) {
        match self {
            Json::Null => s.push_str("null"),
            Json::Bool(b) => s.push_str(if *b { "true" } else { "false" }),
            Json::Num(_, text) => s.push_str(text),
            Json::Str(t) => quote_nc(t, s),
            Json::Arr(a) => {
                s.push('[');
                for (i, v) in a.iter().enumerate() {
                    if i > 0 {
                        s.push(',');
                    }
                    v.write_nc(s);
                }
                s.push(']');
            }
            Json::Obj(o) => {
                s.push('{');
                for (i, (k, v)) in o.iter().enumerate() {
                    if i > 0 {
                        s.push_str(", ");
                    }
                    quote_nc(k, s);
                    s.push_str(": ");
                    v.write_nc(s);
                }
                s.push('}');
            }
        }
    }
}

fn float_value(f: f64) -> serde_json::Value {
    serde_json::Number::from_f64(f).map_or_else(
        || {
            let name = non_finite_name(f);
            serde_json::Value::String(name[1..name.len() - 1].to_string())
        },
        serde_json::Value::Number,
    )
}

/// A string as netcdf-c quotes it: `\b \f \n \r \t \" \\` escaped, nothing else.
fn quote_nc(t: &str, s: &mut String) {
    s.push('"');
    for c in t.chars() {
        match c {
            '\u{8}' => s.push_str("\\b"),
            '\u{c}' => s.push_str("\\f"),
            '\n' => s.push_str("\\n"),
            '\r' => s.push_str("\\r"),
            '\t' => s.push_str("\\t"),
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            c => s.push(c),
        }
    }
    s.push('"');
}

/// `text` without the whitespace between tokens (strings kept as they are).
pub fn squeeze(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'"' => {
                let end = string_end(b, i).unwrap_or(b.len());
                out.push_str(&text[i..end]);
                i = end;
            }
            _ => {
                let n = text[i..].chars().next().map_or(1, char::len_utf8);
                out.push_str(&text[i..i + n]);
                i += n;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words() {
        assert_eq!(classify("true"), Some(Word::True));
        assert_eq!(classify("True"), None);
        assert_eq!(classify("12"), Some(Word::Int));
        assert_eq!(classify("-007"), Some(Word::Int));
        assert_eq!(classify("+1"), Some(Word::Int));
        for f in ["0.", ".5", "-.5", "1e5", "1.e5", "1E-3", "2.5"] {
            assert_eq!(classify(f), Some(Word::Float), "{f}");
        }
        for bad in [".", "-", "e5", "1e", "1.2.3", "0x10", "abc", "1-2", "--1", ""] {
            assert_eq!(classify(bad), None, "{bad}");
        }
        assert!(matches!(classify("NaN"), Some(Word::NonFinite(f)) if f.is_nan()));
        assert_eq!(classify("-Infinity"), Some(Word::NonFinite(f64::NEG_INFINITY)));
        assert_eq!(classify("inf"), Some(Word::NonFinite(f64::INFINITY)));
        assert_eq!(classify("+INF"), Some(Word::NonFinite(f64::INFINITY)));
        assert_eq!(classify("-Infinityf"), Some(Word::NonFinite(f64::NEG_INFINITY)));
        assert!(matches!(classify("-nan"), Some(Word::NonFinite(f)) if f.is_nan()));
    }

    #[test]
    fn strict_rewrites_only_what_json_lacks() {
        let same = r#"{"a": [1, -2.5e3, true, null, "NaN"], "b": {"c": "x\ny"}}"#;
        assert!(matches!(to_strict(same), Ok(Cow::Borrowed(_))));
        assert_eq!(
            to_strict("[0.,.5,+1,007,-0.,1.e5, NaN, -Infinity, Infinity]").unwrap(),
            r#"[0.0,0.5,1,7,-0.0,1.0e5, "NaN", "-Infinity", "Infinity"]"#
        );
        assert_eq!(to_strict("[1e400, -1e999]").unwrap(), r#"["Infinity", "-Infinity"]"#);
        assert_eq!(to_strict("\"a\u{1}b\"").unwrap(), "\"a\\u0001b\"");
        let v: serde_json::Value = serde_json::from_str(&to_strict("[NaN, 0.]").unwrap()).unwrap();
        assert_eq!(v, serde_json::json!(["NaN", 0.0]));
        assert!(to_strict("[nope]").is_err());
    }

    #[test]
    fn members_and_values_are_checked() {
        let m = members(r#" {"a": [1, {"b": NaN}], "a": 0., "k\u0041": "v"} "#, 10).unwrap();
        let keys: Vec<&str> = m.iter().map(|(k, _)| k.as_ref()).collect();
        assert_eq!(keys, ["a", "a", "kA"]);
        assert_eq!(m[0].1, r#"[1, {"b": NaN}]"#);
        assert_eq!(m[1].1, "0.");
        for bad in [
            "",
            "{",
            "[]",
            "{\"a\" 1}",
            "{\"a\": 1,}",
            "{\"a\": [1,]}",
            "{\"a\": [1 2]}",
            "{\"a\": {1: 2}}",
            "{\"a\": 1} x",
            "{\"a\": \"\\x\"}",
            "{\"a\": \"\\u12\"}",
            "{\"a\": \"open}",
            "{\"a\": bare}",
            "{\"a\": [}",
            "{\"a\": 1]",
            "{'a': 1}",
        ] {
            assert!(members(bad, 10).is_err(), "{bad}");
        }
        assert!(members(r#"{"a": 1, "b": 2}"#, 1).is_err());
        let deep = format!("{{\"a\": {}{}}}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(members(&deep, 10).is_err());
        assert!(check("[1, [2, {\"x\": []}]] ").is_ok());
        assert!(check("[1] [2]").is_err());
        assert_eq!(skip_value(" [1, 2] , 3", 0).unwrap(), 1..7);
    }

    #[test]
    fn tolerant_scan_keeps_unreadable_members() {
        let deep = format!("{}{}", "[".repeat(1000), "]".repeat(1000));
        let text = format!(r#"{{"a": [1, nope], "b": 2, "c": {deep}}}"#);
        assert!(members(&text, 10).is_err());
        let m = members_tolerant(&text, 10).unwrap();
        assert_eq!(m.len(), 3);
        assert!(parse(m[0].1).is_err());
        assert!(to_strict(m[0].1).is_err());
        assert_eq!(parse(m[1].1).unwrap(), Json::Num(NumValue::Int(2), "2".into()));
        assert!(parse(m[2].1).is_err());
        // Structure is still checked.
        assert!(members_tolerant(r#"{"a": [1, nope}"#, 10).is_err());
        assert!(members_tolerant(r#"{"a" 1}"#, 10).is_err());
    }

    #[test]
    fn member_depth_matches_serde() {
        // The deepest member value accepted is one serde reads too.
        let d = MAX_DEPTH - 1;
        let text = format!("{{\"a\": {}{}}}", "[".repeat(d), "]".repeat(d));
        let m = members(&text, 10).unwrap();
        assert!(serde_json::from_str::<serde_json::Value>(m[0].1).is_ok());
        assert!(parse(m[0].1).is_ok());
        assert!(serde_json::from_str::<serde_json::Value>(&text).is_ok());
    }

    #[test]
    fn inner_members_in_one_pass() {
        let text = r#"{"metadata": {"a/.zarray": {"x": 1}, "b": [NaN]}, "f": 1, "metadata": {"c": 2}}"#;
        let (outer, inner) = members_and_inner(text, "metadata", 10).unwrap();
        assert_eq!(outer.len(), 3);
        assert_eq!(outer[0].1, r#"{"a/.zarray": {"x": 1}, "b": [NaN]}"#);
        let inner = inner.unwrap();
        assert_eq!(inner.len(), 1, "the last of a repeated key");
        assert_eq!((inner[0].0.as_ref(), inner[0].1), ("c", "2"));
        let (_, none) = members_and_inner(r#"{"metadata": [1]}"#, "metadata", 10).unwrap();
        assert!(none.is_none());
        assert!(members_and_inner(r#"{"metadata": {"a": nope}}"#, "metadata", 10).is_err());
        assert!(members_and_inner(r#"{"metadata": {"a": 1, "b": 2}}"#, "metadata", 1).is_err());
        let (_, none) = members_and_inner(r#"{"metadata": {"a": 1}, "metadata": 2}"#, "metadata", 10).unwrap();
        assert!(none.is_none(), "the last of a repeated key");
        let deep = format!(
            "{{\"metadata\": {{\"a\": {}{}}}}}",
            "[".repeat(MAX_DEPTH - 1),
            "]".repeat(MAX_DEPTH - 1)
        );
        assert!(members_and_inner(&deep, "metadata", 10).is_err());
        let ok = format!(
            "{{\"metadata\": {{\"a\": {}{}}}}}",
            "[".repeat(MAX_DEPTH - 2),
            "]".repeat(MAX_DEPTH - 2)
        );
        assert!(members_and_inner(&ok, "metadata", 10).is_ok());
        assert!(serde_json::from_str::<serde_json::Value>(&ok).is_ok());
    }

    #[test]
    fn strings_decode() {
        assert_eq!(decode_str(r#""plain""#).unwrap(), "plain");
        assert_eq!(
            decode_str(r#""a\"b\\c\/d\n\u00e9\ud83d\ude00""#).unwrap(),
            "a\"b\\c/d\né😀"
        );
        assert!(decode_str(r#""\ud83d""#).is_err());
        assert!(decode_str(r#""\ude00x""#).is_err());
    }

    #[test]
    fn tree_keeps_number_spelling() {
        let j = parse(r#"{"key1": [1,2,3], "key2": {"key3": "abc"}, "f": [0., NaN, 1.50]}"#).unwrap();
        assert_eq!(
            j.to_nc_text(),
            r#"{"key1": [1,2,3], "key2": {"key3": "abc"}, "f": [0.,NaN,1.50]}"#
        );
        let Json::Obj(m) = &j else { panic!() };
        let Json::Arr(f) = &m[2].1 else { panic!() };
        assert_eq!(f[0], Json::Num(NumValue::Float(0.0), "0.".into()));
        assert!(matches!(f[1], Json::Num(NumValue::Float(x), _) if x.is_nan()));
        assert_eq!(
            parse("[12345678901234567890123]").unwrap(),
            Json::Arr(vec![Json::Num(
                NumValue::Int(12345678901234567890123),
                "12345678901234567890123".into()
            )])
        );
        assert_eq!(
            parse(r#"["a\tb", "q\"", "\u0001"]"#).unwrap().to_nc_text(),
            "[\"a\\tb\",\"q\\\"\",\"\u{1}\"]"
        );
        assert_eq!(
            parse("[NaN, 1, -Infinity]").unwrap().to_value(),
            serde_json::json!(["NaN", 1, "-Infinity"])
        );
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert!(parse(&deep).is_err());
    }

    #[test]
    fn squeeze_keeps_strings() {
        assert_eq!(squeeze("{ \"a b\" : [1, 2] }\n"), "{\"a b\":[1,2]}");
    }
}
